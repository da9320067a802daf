#pragma once
// Runs a suite's tests as child processes, N at a time, each with its own
// folder, logs and timeout; every result goes to the history database the
// moment it is known, so a run interrupted at any point resumes without
// losing or repeating a finished test.
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "regress/history_db.h"
#include "regress/progress.h"
#include "regress/shard.h"
#include "regress/suite.h"

namespace mxc::regress {

struct RunnerOptions {
  std::string executable;            ///< The program each test's args are given to (mxcosim).
  /// When set, a file opened as the run starts ("/proc/self/exe": the
  /// runner's own image) that each test runs in place of `executable`,
  /// which stays its argv[0] and the program command.txt names: a rebuild
  /// during the run replaces the file at that path, and the tests after it
  /// would run another program under the run's revision. An ELF binary (a
  /// script run so would not find its file).
  std::string image;
  std::string out_dir;               ///< Tests write to out_dir/tests/<test-id>/.
  unsigned jobs = 1;
  std::optional<Shard> shard;
  std::string tag;                   ///< Only tests with this tag ("" = all).
  bool rerun_failed = false;         ///< Only tests whose last result was not pass/skipped.
  std::optional<double> timeout_seconds;  ///< Overrides the suite's.
  std::string rev = "unknown";
  /// Run label; "" = the newest unfinished run of the suite, revision and
  /// shard with a date label, else today's UTC date.
  std::string label;
  std::string host;
  bool progress = true;
  /// Adds `--threads 1` to `mxcosim run` tests that do not choose: with a
  /// process per core there is no free core for a second thread, and one
  /// thread does the same run in less CPU time (results are identical).
  bool one_thread_per_run = false;
  /// Set (from a signal handler) to stop: running tests are killed and the
  /// run is left resumable.
  const std::atomic<bool>* stop = nullptr;
  /// A test whose stdout or stderr log grows past this is killed, an error
  /// (0: no limit).
  std::uint64_t max_log_bytes = std::uint64_t{1} << 30;
  /// A test that dies of SIGTERM, SIGINT or SIGHUP (which the runner never
  /// sends its tests), or exits 130 as an `mxcosim` command that caught one
  /// does, is recorded only when no stop comes within this many
  /// seconds: a shutdown signals every process in no fixed order, and a test
  /// it killed before the runner saw its own signal is left to run again.
  double shutdown_grace_seconds = 2.0;
};

struct RunSummary {
  std::int64_t run_id = 0;
  bool resumed = false;
  std::size_t selected = 0;          ///< Tests in the suite after shard/tag selection.
  std::size_t already_done = 0;      ///< Skipped because the resumed run had them.
  /// Tests the resumed run planned that the suite no longer has (and that
  /// have no result): taken out of its plan, in plan order.
  std::vector<std::string> dropped;
  std::size_t ran = 0;
  Counts counts;                     ///< Of the whole run (earlier results included).
  std::size_t planned = 0;           ///< Tests in the run's plan.
  std::size_t planned_done = 0;      ///< Of those, tests with a result.
  /// Running the run's shard again (the whole suite for an unsharded run)
  /// without --tag selects every planned test still without a result.
  bool shard_finishes = false;
  bool interrupted = false;
  double wall_seconds = 0;
};

/// The folder name of a test id: '/' becomes "__". An id the plain name
/// would not tell apart from another (one with a character outside
/// [A-Za-z0-9-_.=,+], with "__", or with '_' next to '/', or "." or "..")
/// gets those replaced by '_' and "~" plus a hash of the id appended, so
/// distinct ids get distinct folders.
std::string test_dir_name(const std::string& test_id);

/// The tests `tag` and `shard` select, in suite order; throws
/// std::invalid_argument naming the option when they select none.
std::vector<TestSpec> select_tests(const Suite& suite, const std::string& tag, const std::optional<Shard>& shard);

/// The earlier run run_suite() would continue (--rerun-failed, or an
/// unfinished run of the same suite, revision and label); none when it would
/// start a new one. Reads only.
std::optional<std::int64_t> run_to_continue(HistoryDb& db, const Suite& suite, const RunnerOptions& opts);
/// The complete run of the same suite, revision and label that run_suite()
/// would repeat (as LABEL.2, ...) rather than continue; none when it would
/// continue a run or start the first. Reads only.
std::optional<RunInfo> run_to_repeat(HistoryDb& db, const Suite& suite, const RunnerOptions& opts);

/// Runs `suite` under `opts`, recording into `db`. Throws on a setup error
/// (cannot create folders, nothing to rerun).
RunSummary run_suite(const Suite& suite, const RunnerOptions& opts, HistoryDb& db);

}  // namespace mxc::regress
