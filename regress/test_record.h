#pragma once
// One finished test as the history database keeps it: the outcome decided by
// the runner plus the columns extracted from the test's results.json. Every
// extracted field is optional: results files differ across versions.
#include <cstdint>
#include <optional>
#include <string>

namespace mxc::regress {

/// Outcomes, as stored: "pass", "fail" (ran and found a mismatch), "error"
/// (crash, timeout, usage error), "skipped" (cannot run in this build).
struct TestRecord {
  std::string test_id;
  std::int64_t test_index = 0;    ///< Position in the suite: the report's order.
  std::string status;
  std::string message;            ///< Why it failed or was skipped; "" on pass.
  std::string seed;
  std::string tags;               ///< Comma-separated.
  std::string command;            ///< Reproduce command, shell-quoted.
  std::optional<int> exit_code;
  double wall_seconds = 0;        ///< Measured by the runner around the process.
  std::string finished_at;        ///< UTC, ISO 8601.
  std::int64_t attempts = 1;
  std::string log_dir;
  // From results.json (null when absent).
  std::optional<std::int64_t> cycles_rtl, cycles_model, instructions, mismatch_count;
  std::optional<double> sim_time_ns, utilisation, bandwidth_gbps;
  std::string results_json;       ///< The whole file, "" when none was written.
};

}  // namespace mxc::regress
