#pragma once
// Drives an HbmModel from a RequestSource in closed loop: at most
// `outstanding` requests in flight, each offered as soon as a slot is free
// (and not before its trace time), refused offers retried at the model's
// next event. Event to event, never cycle by cycle.
#include <atomic>
#include <cstdint>
#include <functional>

#include "models/hbm/hbm_model.h"
#include "models/hbm/request_source.h"

namespace mxc::hbm {

struct LoopResult {
  std::uint64_t requests = 0;
  Time sim_time_ps = 0;     ///< Time of the last completion.
  double wall_seconds = 0;  ///< Host time spent (reported only, never used in results).
  double cpu_seconds = 0;   ///< Host CPU time of this process over the run (shared machines).
  std::uint32_t outstanding = 0;  ///< The window used.
  /// Simulated time during which the next request waited for room in a
  /// full controller queue, holding back the requests behind it.
  Time queue_full_ps = 0;
  /// LoopProgress::stop ended the offers before the source did: `requests`
  /// are those offered before it, every one completed.
  bool stopped = false;
};

/// Reports how far a long run has got: called with the requests completed
/// so far and the simulated time of the last completion.
struct LoopProgress {
  std::function<void(std::uint64_t completed, Time now)> report;
  /// Host seconds between reports at least. The clock is read only every
  /// kProgressStride completions, so reports fall on multiples of it (with
  /// 0, every multiple reports: deterministic, for tests).
  double interval_seconds = 1.0;
  /// When set and true (a user asked to stop), no request is offered after
  /// the next look: the loop ends as if the source had, once the requests
  /// in flight completed. Looked at every kProgressStride completions, after
  /// the report (a report may set it).
  const std::atomic<bool>* stop = nullptr;
};
inline constexpr std::uint64_t kProgressStride = 65536;

/// Runs until the source ends (or `progress.stop` is set) and every request
/// offered completed; calls finish(). `progress` never changes the results
/// of the requests run.
LoopResult run_closed_loop(HbmModel& model, RequestSource& source, std::uint32_t outstanding,
                           const LoopProgress& progress = {});

}  // namespace mxc::hbm
