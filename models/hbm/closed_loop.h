#pragma once
// Drives an HbmModel from a RequestSource in closed loop: at most
// `outstanding` requests in flight, each offered as soon as a slot is free
// (and not before its trace time), refused offers retried at the model's
// next event. Event to event, never cycle by cycle.
#include <cstdint>

#include "models/core/progress.h"
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
  /// Simulated time with room in the window while the source had nothing to offer yet: a
  /// trace's next request not due, a pointer chase waiting for its load.
  Time source_idle_ps = 0;
  /// ProgressReport::stop ended the offers before the source did: `requests`
  /// are those offered before it, every one completed.
  bool stopped = false;
};

/// Completions between looks at the progress report and the stop flag: the
/// loop ticks its ProgressReport once per completion, so reports fall on
/// multiples of this and give the completions so far. A stop seen at a look
/// ends the offers: no request is offered after it, and the loop ends as if
/// the source had, once the requests in flight completed.
inline constexpr std::uint64_t kProgressStride = 65536;

/// Runs until the source ends (or `progress.stop` is set) and every request
/// offered completed; calls finish(). `progress` never changes the results
/// of the requests run.
LoopResult run_closed_loop(HbmModel& model, RequestSource& source, std::uint32_t outstanding,
                           const ProgressReport& progress = {});

}  // namespace mxc::hbm
