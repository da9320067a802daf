#include "models/hbm/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace mxc::hbm {

double LatencyHistogram::percentile_ns(double p) const {
  if (m_count == 0) return 0.0;
  const auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(m_count)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBins; ++i) {
    seen += m_bins[i];
    if (seen >= std::max<std::uint64_t>(rank, 1))
      return i + 1 == kBins ? max_ns() : static_cast<double>(i * kPsPerNs + m_top[i]) / 1000.0;
  }
  return max_ns();
}

}  // namespace mxc::hbm
