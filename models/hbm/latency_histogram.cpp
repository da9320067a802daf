#include "models/hbm/latency_histogram.h"

#include <bit>
#include <cmath>

namespace mxc::hbm {

void LatencyHistogram::add_long(Time latency_ps) {
  const std::uint64_t ns = latency_ps / kPsPerNs;  // >= kBins = 2^14
  const auto octave = static_cast<std::uint64_t>(std::bit_width(ns) - 1);  // >= 14
  const std::uint64_t part = (ns >> (octave - 10)) & 1023;
  LongBin& b = m_long[octave << 10 | part];
  ++b.count;
  b.top_ps = std::max(b.top_ps, latency_ps);
}

double LatencyHistogram::percentile_ns(double p) const {
  if (m_count == 0) return 0.0;
  const std::uint64_t rank =
      std::max<std::uint64_t>(static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(m_count))), 1);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBins; ++i) {
    seen += m_bins[i];
    if (seen >= rank) return static_cast<double>(i * kPsPerNs + m_top[i]) / 1000.0;
  }
  for (const auto& [key, b] : m_long) {
    seen += b.count;
    if (seen >= rank) return static_cast<double>(b.top_ps) / 1000.0;
  }
  return max_ns();
}

}  // namespace mxc::hbm
