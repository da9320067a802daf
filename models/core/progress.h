#pragma once
// Progress of a long simulation loop for a person watching: a report at
// most every `interval_seconds` of host time. The loop ticks once per
// iteration or unit of work; the host clock is read only every stride-th
// tick, so an unwatched loop pays one branch and a watched one little more.
// Reports never change what the loop simulates. A stop flag is looked at on
// the same stride; the loop decides how it ends (one that abandons its
// work throws LoopStopped).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>

#include "models/core/time.h"

namespace mxc {

struct ProgressReport {
  /// Called with the loop's simulated time and its ticks so far (for a loop
  /// that ticks once per unit of work, the units done); empty: no reports.
  std::function<void(Time now, std::uint64_t ticks)> report;
  /// Host seconds between reports at least (0: every stride-th tick, for tests).
  double interval_seconds = 1.0;
  /// When set and true, the loop ends at its next look, after the report (a
  /// user asked to stop; a report may set it).
  const std::atomic<bool>* stop = nullptr;
};

/// A loop ended before its work was complete because ProgressReport::stop
/// was set: what it was measuring is not a result.
class LoopStopped : public std::runtime_error {
 public:
  explicit LoopStopped(Time now) : std::runtime_error("stopped"), m_now(now) {}
  /// The loop's simulated time when it stopped.
  Time now() const { return m_now; }

 private:
  Time m_now;
};

/// `Stride`: ticks between looks, a power of two (a constant: the test on
/// every tick is one mask).
template <std::uint64_t Stride = 4096>
class ProgressTicker {
  static_assert(Stride > 0 && (Stride & (Stride - 1)) == 0, "the stride must be a power of two");

 public:
  static constexpr std::uint64_t kStride = Stride;

  explicit ProgressTicker(const ProgressReport& p)
      : m_p(p), m_watched(p.report || p.stop),
        m_interval(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(p.interval_seconds))),
        m_next(Clock::now() + m_interval) {}

  /// Counts a tick at simulated time `now`; on every stride-th, reports if
  /// one is due and then says whether the stop flag is set.
  [[nodiscard]] bool tick(Time now) {
    if (m_watched && ++m_ticks % Stride == 0) [[unlikely]]
      return look(now);
    return false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  // The report first: one may set the stop flag, seen at this same look.
  bool look(Time now) {
    if (m_p.report) {
      const auto t = Clock::now();
      if (t >= m_next) {
        m_next = t + m_interval;
        m_p.report(now, m_ticks);
      }
    }
    return m_p.stop && m_p.stop->load(std::memory_order_relaxed);
  }

  const ProgressReport& m_p;
  const bool m_watched;  // reports or a stop flag to look at
  Clock::duration m_interval;
  Clock::time_point m_next;
  std::uint64_t m_ticks = 0;
};

}  // namespace mxc
