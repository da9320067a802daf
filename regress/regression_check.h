#pragma once
// Comparing a run against a baseline run test by test: a test regressed
// when it stopped passing (failed, errored or was skipped), or its model
// error, its cycles or its speed got worse by more than a threshold.
#include <optional>
#include <string>
#include <vector>

#include "regress/test_record.h"

namespace mxc::regress {

struct Thresholds {
  double error_points = 1.0;    ///< |model error| grew by more than this many percentage points.
  double cycles_ratio = 1.02;   ///< RTL cycles grew by more than 2 %.
  double speed_ratio = 0.75;    ///< Simulated cycles per wall second fell below 75 % (wall time is noisy).
  /// Speed is compared only where both runs took at least this long: a
  /// shorter one is mostly the process starting, and its speed noise.
  double speed_min_seconds = 2.0;
};

struct Regression {
  std::string test_id;
  std::string what;             ///< "status", "error", "cycles" or "speed".
  std::string baseline, current;  ///< The compared values, printable.
};

/// Model error of a test in percent: (model - rtl) / rtl * 100; null
/// without both cycle counts or with zero RTL cycles.
std::optional<double> model_error_pct(const TestRecord& r);
/// RTL cycles simulated per wall second; null without cycles or time.
std::optional<double> sim_speed(const TestRecord& r);

/// Regressions of `current` against `baseline`, in the order of `current`,
/// then those of `not_run` (tests of the current run's plan with no result,
/// in plan order): a test that passed in the baseline and did not run tests
/// nothing, as a skipped one. Tests absent from the baseline are new, not
/// regressed.
std::vector<Regression> find_regressions(const std::vector<TestRecord>& baseline,
                                         const std::vector<TestRecord>& current, const Thresholds& t,
                                         const std::vector<std::string>& not_run = {});

}  // namespace mxc::regress
