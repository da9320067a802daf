#pragma once
// Request latencies in 1 ns bins up to 16 us (exact count and sum beyond),
// with percentiles read from the bins. Each bin also keeps its largest
// latency, so a percentile is a latency that occurred: exact when the
// latencies of its bin are equal (whole nanoseconds at a 1 ns clock), and
// less than 1 ns above the true value otherwise.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/core/time.h"

namespace mxc::hbm {

class LatencyHistogram {
 public:
  LatencyHistogram() : m_bins(kBins, 0), m_top(kBins, 0) {}
  void add(Time latency_ps) {  // inline: once per request
    const std::size_t i = std::min<std::size_t>(latency_ps / kPsPerNs, kBins - 1);
    ++m_bins[i];
    m_top[i] = std::max(m_top[i], static_cast<std::uint16_t>(latency_ps - i * kPsPerNs));  // < 1000 below the last bin
    ++m_count;
    m_sum_ps += latency_ps;
    m_max_ps = std::max(m_max_ps, latency_ps);
  }
  std::uint64_t count() const { return m_count; }
  /// All latencies added, summed.
  std::uint64_t sum_ps() const { return m_sum_ps; }
  double mean_ns() const { return m_count ? static_cast<double>(m_sum_ps) / m_count / 1000.0 : 0.0; }
  double max_ns() const { return static_cast<double>(m_max_ps) / 1000.0; }
  /// Latency (ns) at or below which `p` percent fall: the largest latency
  /// of the 1 ns bin that holds the sample of that rank.
  double percentile_ns(double p) const;

 private:
  static constexpr std::size_t kBins = 16384;
  std::vector<std::uint64_t> m_bins;
  std::vector<std::uint16_t> m_top;  // per bin, its largest latency's ps past the bin's start
  std::uint64_t m_count = 0, m_sum_ps = 0, m_max_ps = 0;
};

}  // namespace mxc::hbm
