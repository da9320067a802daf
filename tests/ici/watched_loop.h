#pragma once
// Runs an ICI loop that takes a ProgressReport (a traffic point, a
// collective) the ways the progress and stop tests watch it: `run` is
// called with the report and returns the loop's result.
#include <atomic>
#include <cstdint>
#include <vector>

#include "models/core/progress.h"

namespace mxc::test {

/// `run` with a report at every look: its result; the reports' times go to `seen`.
template <class Run>
auto run_reporting(Run&& run, std::vector<Time>& seen) {
  return run(ProgressReport{.report = [&](Time now, std::uint64_t) { seen.push_back(now); }, .interval_seconds = 0});
}

/// `run` watching a stop flag that stays clear: its result.
template <class Run>
auto run_with_clear_stop(Run&& run) {
  std::atomic<bool> stop{false};
  ProgressReport watch;  // the flag alone
  watch.stop = &stop;
  return run(watch);
}

/// The reports a stopped run made and where LoopStopped said it stopped
/// (kNever: it was not stopped).
struct StoppedRun {
  std::vector<Time> reports;
  Time stopped_at = kNever;
};

/// `run` with a report at every look that sets the stop flag at the
/// `nth` report (0: the flag is set before the run starts).
template <class Run>
StoppedRun stop_at_report(Run&& run, std::size_t nth) {
  std::atomic<bool> stop{nth == 0};
  StoppedRun out;
  const ProgressReport stopping{.report =
                                    [&](Time now, std::uint64_t) {
                                      out.reports.push_back(now);
                                      if (out.reports.size() == nth) stop = true;
                                    },
                                .interval_seconds = 0,
                                .stop = &stop};
  try {
    run(stopping);
  } catch (const LoopStopped& e) {
    out.stopped_at = e.now();
  }
  return out;
}

}  // namespace mxc::test
