#pragma once
// The results history: every test result of every run in one SQLite file,
// keyed by suite, revision, run label (the night) and test id. WAL mode and
// one transaction per result, so an interrupted run keeps every finished
// test. The schema is versioned and migrated forward on open.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "regress/test_record.h"

struct sqlite3;

namespace mxc::regress {

/// One run of a suite: a night, a CI job, a Slurm array.
struct RunInfo {
  std::int64_t run_id = 0;
  // Strings brace-initialised: a key may name only some fields ({.suite = ..., .shard = ...}).
  std::string suite{};
  std::string rev{};
  std::string label{};      ///< Distinguishes runs of one suite at one revision (default: the UTC date).
  std::string started_at{};
  std::string finished_at{};
  std::string state{};      ///< "running", "interrupted", "complete".
  std::string host{};
  std::string shard{};      ///< "K/N", "" for a whole suite, or the merged shards.
  std::int64_t planned = 0;  ///< Tests in the run's plan (see HistoryDb::add_to_plan).
  /// `planned` as a count (a damaged file's negative one as 0).
  std::size_t planned_count() const { return planned > 0 ? static_cast<std::size_t>(planned) : 0; }
};

/// Per-run aggregates for the night-over-night trend.
struct RunStats {
  std::int64_t run_id = 0;
  std::int64_t pass = 0, fail = 0, error = 0, skipped = 0;
  std::int64_t not_run = 0;                   ///< Planned tests with no result (not in `error`).
  std::optional<double> mean_abs_error_pct;   ///< Over tests with model and RTL cycles.
  double wall_seconds = 0;                    ///< Sum of the tests' wall times.
};

class HistoryDb {
 public:
  enum class Access {
    write,  ///< Opens, creating the file if needed, and migrates.
    read,   ///< Opens an existing results database without writing to it
            ///< (one written by an older mxcosim is migrated forward); in a
            ///< folder the user may not write, as the file is on disk.
  };
  /// Throws std::runtime_error naming the file on failure, on a file that is
  /// not a results database, or on a schema version that is invalid or
  /// newer than this program's.
  explicit HistoryDb(const std::string& path, Access access = Access::write);
  ~HistoryDb();
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  static constexpr int kSchemaVersion = 4;
  int schema_version();
  std::string journal_mode();
  const std::string& path() const { return m_path; }

  /// The run to continue: the newest run with this suite, rev and label if it
  /// did not complete; otherwise a new one. `resumed` tells which.
  std::int64_t open_run(const RunInfo& key, bool& resumed);
  /// The run open_run() would continue, writing nothing; none when it would
  /// make a new one, whose label it puts in `fresh_label` if given.
  std::optional<RunInfo> resumable_run(const RunInfo& key, std::string* fresh_label = nullptr);
  /// A new run with exactly this key (fails if it exists).
  std::int64_t create_run(const RunInfo& key);
  std::optional<RunInfo> find_run(const std::string& suite, const std::string& rev, const std::string& label);
  void set_run_state(std::int64_t run_id, const std::string& state, const std::string& finished_at);
  /// Sets the run's start time (a merged run starts when its earliest shard did).
  void set_run_started(std::int64_t run_id, const std::string& started_at);
  void set_run_planned(std::int64_t run_id, std::int64_t planned, const std::string& shard);

  /// Adds tests to the run's plan (the union of what every command on it
  /// selected), and sets its shard and its planned count to the plan's size
  /// plus `unlisted`: tests known by number only, from runs recorded before
  /// plans were kept (merging). One transaction.
  void add_to_plan(std::int64_t run_id, const std::vector<std::string>& test_ids, const std::string& shard,
                   std::int64_t unlisted = 0);
  /// The run's plan; empty for a run recorded before plans were kept, whose
  /// planned count is all that is known of it.
  std::set<std::string> planned_tests(std::int64_t run_id);
  /// The same plan in the order its tests were added (the suite's order;
  /// a merged plan's shards one after the other).
  std::vector<std::string> plan_in_order(std::int64_t run_id);

  /// Takes tests out of the run's plan, lowering its planned count by as
  /// many as it held. One transaction.
  void remove_from_plan(std::int64_t run_id, const std::vector<std::string>& test_ids);
  /// Adds to the tests a shard's run was taken from (the suite after --tag),
  /// in suite order; a merge plans them all.
  void add_suite_tests(std::int64_t run_id, const std::vector<std::string>& test_ids);
  /// Those tests in the order they were added; empty for an unsharded run
  /// or one recorded before they were kept. A merged run has its shards'.
  std::vector<std::string> suite_tests(std::int64_t run_id);

  /// Test ids that have a result in the run.
  std::set<std::string> finished_tests(std::int64_t run_id);
  /// Inserts or replaces the result of one test, in its own transaction.
  void record(std::int64_t run_id, const TestRecord& rec);
  /// Many results in one transaction (merging, bulk import). With
  /// `copy_attempts` each record's `attempts` is stored as it is (a merge
  /// copies results, so merging one again changes nothing); otherwise it
  /// adds to the attempts already recorded.
  void record_all(std::int64_t run_id, const std::vector<TestRecord>& recs, bool copy_attempts = false);

  /// The latest run other than `run_id` with a result whose logs are in
  /// `dir` (a test's log folder, reused by each run of the test).
  std::optional<std::int64_t> run_with_logs_in(const std::string& dir, std::int64_t run_id);
  /// That run's results in `from` now keep their logs in `to`.
  void move_logs(std::int64_t run_id, const std::string& from, const std::string& to);
  /// Every run, oldest first (by start time, then id).
  std::vector<RunInfo> runs();
  std::optional<RunInfo> run(std::int64_t run_id);
  /// Results of one run in suite order.
  std::vector<TestRecord> results(std::int64_t run_id);

  /// Aggregates of every run of `suite`, oldest first.
  std::vector<RunStats> run_stats(const std::string& suite);

  void exec(const std::string& sql);
  /// Runs `body` in one write transaction, rolled back whole if it throws;
  /// the methods above that write in their own transaction join it.
  void transaction(const std::function<void()>& body) { in_transaction(body); }

 private:
  /// Opens `name` (the path, or an SQLite URI of it) with `flags`; errors name the path.
  void open(const std::string& name, int flags);
  /// Opens the file read-only and returns its schema version. A database in
  /// WAL mode in a folder the user may not write (its -wal and -shm files
  /// cannot be made) is opened as immutable instead.
  std::int64_t open_to_read();
  /// The file's schema version after checking it is a results database; 0
  /// for an empty file when `may_be_new`.
  std::int64_t stored_version(bool may_be_new);
  void migrate();
  void insert(std::int64_t run_id, const TestRecord& rec, bool copy_attempts);
  /// Runs `body` in one write transaction, rolled back if it throws; inside
  /// another one, as part of it.
  void in_transaction(const std::function<void()>& body);
  /// The test ids `sql` selects for `run_id` (its one parameter).
  std::set<std::string> test_ids(const char* sql, std::int64_t run_id);

  sqlite3* m_db = nullptr;
  int m_open_error = 0;  ///< The SQLite code of the last open() that failed.
  std::string m_path;
  int m_transaction_depth = 0;  ///< Nested in_transaction() calls running.
};

/// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now();

}  // namespace mxc::regress
