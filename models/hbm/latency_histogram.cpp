#include "models/hbm/latency_histogram.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mxc {

LatencyHistogram::LatencyHistogram(Time bucket_ps, std::size_t max_buckets)
    : m_bucket(bucket_ps), m_max_buckets(max_buckets) {
  if (bucket_ps == 0 || max_buckets == 0) throw std::invalid_argument("latency histogram: zero bucket size or count");
}

void LatencyHistogram::add(Time latency) {
  const std::size_t i = std::min<std::size_t>(latency / m_bucket, m_max_buckets - 1);
  if (i >= m_counts.size()) m_counts.resize(i + 1, 0);
  ++m_counts[i];
  ++m_count;
  m_sum += latency;
  m_min = std::min(m_min, latency);
  m_max = std::max(m_max, latency);
}

Time LatencyHistogram::percentile(double q) const {
  if (m_count == 0) return 0;
  const auto rank = static_cast<std::uint64_t>(std::ceil(q * double(m_count)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < m_counts.size(); ++i) {
    seen += m_counts[i];
    if (seen >= std::max<std::uint64_t>(rank, 1)) return std::min<Time>((i + 1) * m_bucket, m_max);
  }
  return m_max;
}

}  // namespace mxc
