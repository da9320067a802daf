#pragma once
// Request latencies: 1 ns bins up to 16.384 us, where nearly all HBM
// latencies fall, then bins 1/1024 of their latency wide (2^e ns split in
// 1024), so a run whose latencies reach milliseconds (a slow clock, deep
// queues) still has true percentiles. Each bin keeps its largest latency, so
// a percentile is a latency that occurred: exact when the latencies of its
// bin are equal (whole nanoseconds at a 1 ns clock), else above the true
// value by less than the bin's width (1 ns, or 1/1024 beyond 16.384 us).
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "models/core/time.h"

namespace mxc::hbm {

class LatencyHistogram {
 public:
  LatencyHistogram() : m_bins(kBins, 0), m_top(kBins, 0) {}
  void add(Time latency_ps) {  // inline: once per request
    ++m_count;
    m_sum_ps += latency_ps;
    m_max_ps = std::max(m_max_ps, latency_ps);
    const std::size_t i = latency_ps / kPsPerNs;
    if (i >= kBins) [[unlikely]] {
      add_long(latency_ps);
      return;
    }
    ++m_bins[i];
    m_top[i] = std::max(m_top[i], static_cast<std::uint16_t>(latency_ps - i * kPsPerNs));  // < 1000
  }
  std::uint64_t count() const { return m_count; }
  /// All latencies added, summed.
  std::uint64_t sum_ps() const { return m_sum_ps; }
  double mean_ns() const { return m_count ? static_cast<double>(m_sum_ps) / m_count / 1000.0 : 0.0; }
  double max_ns() const { return static_cast<double>(m_max_ps) / 1000.0; }
  /// Latency (ns) at or below which `p` percent fall: the largest latency
  /// of the bin that holds the sample of that rank.
  double percentile_ns(double p) const;

 private:
  static constexpr std::size_t kBins = 16384;  // 1 ns each; 2^14, where the long bins start
  struct LongBin {
    std::uint64_t count = 0;
    Time top_ps = 0;
  };
  /// A latency of 16.384 us or more, in the bin of its power of two (in ns)
  /// and of the 1024 parts that power is split in; keys grow with latency.
  void add_long(Time latency_ps);

  std::vector<std::uint64_t> m_bins;
  std::vector<std::uint16_t> m_top;  // per bin, its largest latency's ps past the bin's start
  std::map<std::uint64_t, LongBin> m_long;  // at most 1024 bins per power of two
  std::uint64_t m_count = 0, m_sum_ps = 0, m_max_ps = 0;
};

}  // namespace mxc::hbm
