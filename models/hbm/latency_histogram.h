#pragma once
// Latency histogram in fixed-width buckets (picoseconds) with exact count,
// sum, min and max; percentiles are the upper edge of the bucket that
// reaches the requested rank.
#include <cstdint>
#include <vector>

#include "models/core/time.h"

namespace mxc {

class LatencyHistogram {
 public:
  /// `bucket_ps` wide buckets; latencies beyond `max_buckets` share the last one.
  explicit LatencyHistogram(Time bucket_ps = 1000, std::size_t max_buckets = 1 << 20);

  void add(Time latency);
  std::uint64_t count() const { return m_count; }
  double mean() const { return m_count ? double(m_sum) / double(m_count) : 0.0; }
  Time min() const { return m_count ? m_min : 0; }
  Time max() const { return m_max; }
  /// Upper edge of the bucket holding the q-quantile (q in (0, 1]), capped at max().
  Time percentile(double q) const;
  Time bucket_ps() const { return m_bucket; }
  const std::vector<std::uint64_t>& buckets() const { return m_counts; }

 private:
  Time m_bucket;
  std::size_t m_max_buckets;
  std::vector<std::uint64_t> m_counts;
  std::uint64_t m_count = 0;
  Time m_sum = 0, m_min = kNever, m_max = 0;
};

}  // namespace mxc
