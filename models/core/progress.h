#pragma once
// Progress of a long simulation loop for a person watching: a report at
// most every `interval_seconds` of host time. The loop ticks on every
// iteration; the host clock is read only every kStride-th tick, so an
// unwatched loop pays one branch and a watched one little more. Reports
// never change what the loop simulates.
#include <chrono>
#include <cstdint>
#include <functional>

#include "models/core/time.h"

namespace mxc {

struct ProgressReport {
  /// Called with the loop's simulated time; empty: no reports.
  std::function<void(Time now)> report;
  /// Host seconds between reports at least (0: every kStride-th tick, for tests).
  double interval_seconds = 1.0;
};

class ProgressTicker {
 public:
  static constexpr std::uint64_t kStride = 4096;

  explicit ProgressTicker(const ProgressReport& p)
      : m_p(p), m_interval(std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(p.interval_seconds))),
        m_next(Clock::now() + m_interval) {}

  void tick(Time now) {
    if (m_p.report && ++m_ticks % kStride == 0) [[unlikely]]
      look(now);
  }

 private:
  using Clock = std::chrono::steady_clock;
  void look(Time now) {
    const auto t = Clock::now();
    if (t < m_next) return;
    m_next = t + m_interval;
    m_p.report(now);
  }

  const ProgressReport& m_p;
  Clock::duration m_interval;
  Clock::time_point m_next;
  std::uint64_t m_ticks = 0;
};

}  // namespace mxc
