#pragma once
// Everything a report shows, read from the history database alone: the
// chosen run, its baseline, the regressions between them and the trend of
// every run of the suite.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "regress/history_db.h"
#include "regress/progress.h"
#include "regress/regression_check.h"

namespace mxc::regress {

struct ReportSelection {
  std::string suite;          ///< "" = the suite of the newest run.
  std::string rev;            ///< "" = any revision; else as rev_matches() takes it.
  std::string label;          ///< "" = any label.
  std::optional<std::int64_t> run_id;  ///< Overrides the three above.
  /// "" = the newest earlier run of the suite with a result for every test
  /// of the chosen run, else for any of them; else a run at this revision
  /// (which must exist), preferring one with a result for every test, then
  /// for any, then a complete one.
  std::string baseline_rev;
  Thresholds thresholds;
};

struct ReportData {
  RunInfo run;
  std::optional<RunInfo> baseline;
  /// Each test's seed is the one it ran with, as every report shows it: the
  /// one its suite set, else the one its results file recorded (a test whose
  /// suite sets none runs with the program's default); "" when neither has one.
  std::vector<TestRecord> tests;
  /// Tests of the run's plan with no result (an interrupted or killed run,
  /// a shard never merged), in plan order. Every report counts them as
  /// errors (report_totals); `counts` does not hold them.
  std::vector<std::string> not_run;
  /// Why each test of `not_run` did not run, in the same order: "not run:
  /// shard 2/3 was never merged", or what the run's state tells.
  std::vector<std::string> not_run_why;
  std::vector<Regression> regressions;
  std::vector<RunInfo> trend_runs;
  std::vector<RunStats> trend_stats;
  Counts counts;
  /// Why there is no baseline, when there is none; or that it shares no
  /// test with the run, when nothing was compared.
  std::string baseline_note;
  /// Tests of the run (with a result or not run) the baseline has a result
  /// for: what the regressions were looked for in.
  std::size_t compared = 0;
};

/// A report's tests by status, those of the plan that never ran among the
/// errors: every report counts them so, and a CI server or a reader of the
/// summary must not see an interrupted night as green.
struct ReportTotals {
  std::size_t total = 0;  ///< Tests with a result plus those not run.
  std::size_t pass = 0, fail = 0, error = 0, skipped = 0;
  std::size_t not_run = 0;  ///< Of `error`: planned, no result.
};

/// The totals of `results` tests with a result, counted in `counts`, and
/// `not_run` planned tests without one (a run of the trend has no ReportData).
ReportTotals report_totals(const Counts& counts, std::size_t results, std::size_t not_run);
/// The totals of d's run: d.tests and d.not_run.
ReportTotals report_totals(const ReportData& d);

/// Throws std::runtime_error naming the database and the selection when it
/// has no matching run, or no run of the suite at a named baseline revision,
/// or when a revision given names several.
ReportData load_report_data(HistoryDb& db, const ReportSelection& sel);

/// Whether `db` holds a run of `suite` at revision `rev` (rev_matches), other
/// than run `other_than` (the run a regress command is about to continue);
/// throws std::runtime_error when `rev` names several of its revisions.
bool has_run_at(HistoryDb& db, const std::string& suite, const std::string& rev,
                std::optional<std::int64_t> other_than = std::nullopt);
/// Whether a revision given by a user (`--baseline`) names `stored`: the
/// whole of it, or its first 4 or more characters.
bool rev_matches(const std::string& stored, const std::string& given);

/// Why test `i` of d.not_run did not run: d.not_run_why[i], else (data
/// made without it) what the run's state tells.
std::string not_run_reason(const ReportData& d, std::size_t i);

/// The report's data as JSON (what the HTML page and the JSON export carry).
/// The tests that did not run are in its summary, tests and trend as
/// errors, each with `not_run` true and its reason as message.
nlohmann::json to_json(const ReportData& d);

}  // namespace mxc::regress
