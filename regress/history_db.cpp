#include "regress/history_db.h"

#include <sqlite3.h>

#include <cctype>
#include <ctime>
#include <stdexcept>

namespace mxc::regress {

namespace {

// Migration N takes the schema from version N-1 to N. Append only: a
// database written by an older build is carried forward step by step.
const char* const kMigrations[] = {
    // 1: runs and results.
    R"sql(
    CREATE TABLE runs (
      run_id      INTEGER PRIMARY KEY,
      suite       TEXT NOT NULL,
      rev         TEXT NOT NULL,
      label       TEXT NOT NULL,
      started_at  TEXT NOT NULL,
      finished_at TEXT,
      state       TEXT NOT NULL,
      host        TEXT
    );
    CREATE TABLE results (
      run_id         INTEGER NOT NULL REFERENCES runs(run_id),
      test_id        TEXT NOT NULL,
      test_index     INTEGER NOT NULL,
      status         TEXT NOT NULL,
      message        TEXT,
      seed           TEXT,
      tags           TEXT,
      command        TEXT,
      exit_code      INTEGER,
      wall_seconds   REAL,
      finished_at    TEXT,
      attempts       INTEGER NOT NULL DEFAULT 1,
      cycles_rtl     INTEGER,
      cycles_model   INTEGER,
      instructions   INTEGER,
      mismatch_count INTEGER,
      sim_time_ns    REAL,
      utilisation    REAL,
      bandwidth_gbps REAL,
      results_json   TEXT,
      PRIMARY KEY (run_id, test_id)
    );)sql",
    // 2: shards and planned counts (for sharded and resumed runs), log
    // folders, and the index the trend and baseline queries use.
    R"sql(
    ALTER TABLE runs ADD COLUMN shard TEXT NOT NULL DEFAULT '';
    ALTER TABLE runs ADD COLUMN planned INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE results ADD COLUMN log_dir TEXT;
    CREATE INDEX runs_by_suite ON runs(suite, rev, label);)sql",
    // 3: each run's plan as test ids, so a resume that selects other tests
    // cannot complete a run whose first tests never ran.
    R"sql(
    CREATE TABLE planned_tests (
      run_id  INTEGER NOT NULL REFERENCES runs(run_id),
      test_id TEXT NOT NULL,
      PRIMARY KEY (run_id, test_id)
    );)sql",
    // 4: a shard's run keeps the tests its shard was taken from, so a merge
    // that lacks a shard plans that shard's tests (not run) all the same.
    R"sql(
    CREATE TABLE suite_tests (
      run_id  INTEGER NOT NULL REFERENCES runs(run_id),
      test_id TEXT NOT NULL,
      PRIMARY KEY (run_id, test_id)
    );)sql",
};
static_assert(std::size(kMigrations) == HistoryDb::kSchemaVersion);

// Migration 3's and 4's tables, empty, for reading an older file without writing it.
const char* const kNoPlans = "CREATE TEMP TABLE planned_tests (run_id INTEGER NOT NULL, test_id TEXT NOT NULL)";
const char* const kNoSuiteTests = "CREATE TEMP TABLE suite_tests (run_id INTEGER NOT NULL, test_id TEXT NOT NULL)";

// Every error names the database: "results database 'r.db': sqlite: ...".
[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error("results database '" + path + "': " + what);
}

class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql) : m_db(db), m_path(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr) != SQLITE_OK)
      fail(m_path, std::string("sqlite: ") + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(m_stmt); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(m_stmt, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(m_stmt, i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(m_stmt, i, v);
    return *this;
  }
  template <class T>
  Statement& bind(int i, const std::optional<T>& v) {
    if (v) return bind(i, static_cast<std::conditional_t<std::is_integral_v<T>, std::int64_t, double>>(*v));
    sqlite3_bind_null(m_stmt, i);
    return *this;
  }
  /// Ready to run again with new bindings.
  void reset() { sqlite3_reset(m_stmt); }
  /// True while a row is available.
  bool step() {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(m_path, std::string("sqlite: ") + sqlite3_errmsg(m_db));
  }
  std::string text(int c) const {
    const auto* p = sqlite3_column_text(m_stmt, c);
    // By its length: a test's output may hold a NUL byte, and the text goes on after it.
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, c)))
             : "";
  }
  std::int64_t integer(int c) const { return sqlite3_column_int64(m_stmt, c); }
  std::optional<std::int64_t> opt_int(int c) const {
    if (sqlite3_column_type(m_stmt, c) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_int64(m_stmt, c);
  }
  std::optional<double> opt_double(int c) const {
    if (sqlite3_column_type(m_stmt, c) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_double(m_stmt, c);
  }

 private:
  sqlite3* m_db;
  const std::string& m_path;
  sqlite3_stmt* m_stmt = nullptr;
};

const char* const kRunColumns = "run_id, suite, rev, label, started_at, finished_at, state, host, shard, planned";

RunInfo read_run(const Statement& s) {
  RunInfo r;
  r.run_id = s.integer(0);
  r.suite = s.text(1);
  r.rev = s.text(2);
  r.label = s.text(3);
  r.started_at = s.text(4);
  r.finished_at = s.text(5);
  r.state = s.text(6);
  r.host = s.text(7);
  r.shard = s.text(8);
  r.planned = s.integer(9);
  return r;
}

// An SQLite URI that opens `path` read-only as immutable: no locks, no -wal
// or -shm files. Every byte but unreserved ones and '/' is percent-encoded
// ('?', '#' and '%' would end or change the path).
std::string immutable_uri(const std::string& path) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string uri = "file:";
  for (const unsigned char c : path) {
    const bool plain = std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~';
    if (plain) {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 0xf];
    }
  }
  return uri + "?mode=ro&immutable=1";
}

}  // namespace

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

HistoryDb::HistoryDb(const std::string& path, Access access) : m_path(path) {
  std::int64_t read_version = 0;  // a read-only open's file version, when older than this program's
  try {
    if (access == Access::read) {
      // Only looked at: a file that is not a results database (another
      // program's, an empty one) is refused untouched.
      const std::int64_t version = open_to_read();
      if (version == kSchemaVersion) return;
      if (version == 2 || version == 3) {
        // Written before plans (or shards' suites) were kept: its runs have
        // no such rows, so empty tables in this connection's temporary
        // schema stand for them, and the file is read as it is (it may not
        // be writable).
        if (version == 2) exec(kNoPlans);
        exec(kNoSuiteTests);
        return;
      }
      // Older still: carried forward as when it is written to.
      read_version = version;
      sqlite3_close(m_db);
      m_db = nullptr;
      open(m_path, SQLITE_OPEN_READWRITE);
    } else {
      open(m_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
      stored_version(true);  // another program's file is refused before anything is written
    }
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    exec("PRAGMA foreign_keys=ON");
    migrate();
  } catch (const std::runtime_error& e) {
    sqlite3_close(m_db);
    m_db = nullptr;
    if (read_version == 0) throw;
    throw std::runtime_error(std::string(e.what()) + " (its schema version " + std::to_string(read_version) +
                             " must be carried forward to " + std::to_string(kSchemaVersion) +
                             " to be read, which writes to it: run mxcosim regress or report on it once with "
                             "write access)");
  } catch (...) {
    sqlite3_close(m_db);
    m_db = nullptr;
    throw;
  }
}

void HistoryDb::open(const std::string& name, int flags) {
  if (sqlite3_open_v2(name.c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
    m_open_error = m_db ? sqlite3_errcode(m_db) : SQLITE_NOMEM;
    std::string msg = m_db ? sqlite3_errmsg(m_db) : "out of memory";
    sqlite3_close(m_db);
    m_db = nullptr;
    throw std::runtime_error("cannot open results database '" + m_path + "': " + msg);
  }
  // Several shard processes or a report reader may touch the file at once.
  sqlite3_busy_timeout(m_db, 30000);
}

std::int64_t HistoryDb::open_to_read() {
  try {
    open(m_path, SQLITE_OPEN_READONLY);
    return stored_version(false);
  } catch (const std::runtime_error&) {
    // A reader of a database in WAL mode creates its -wal and -shm files
    // when they are not there, which fails in a folder it may not write.
    const int code = (m_db ? sqlite3_errcode(m_db) : m_open_error) & 0xff;
    if (code != SQLITE_CANTOPEN && code != SQLITE_READONLY) throw;
  }
  sqlite3_close(m_db);
  m_db = nullptr;
  // Read as the file is on disk, without those files: no writer can be
  // running where none can create them.
  open(immutable_uri(m_path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  return stored_version(false);
}

HistoryDb::~HistoryDb() { sqlite3_close(m_db); }

void HistoryDb::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    fail(m_path, "sqlite: " + msg);
  }
}

int HistoryDb::schema_version() { return static_cast<int>(stored_version(false)); }

std::int64_t HistoryDb::stored_version(bool may_be_new) {
  bool has_table = false, has_others = false;
  {
    Statement t(m_db, m_path, "SELECT name FROM sqlite_master WHERE type = 'table'");
    while (t.step()) (t.text(0) == "schema_version" ? has_table : has_others) = true;
  }
  if (!has_table && (has_others || !may_be_new))
    fail(m_path, "not an mxcosim results database (it has no schema_version table)");
  if (!has_table) return 0;
  Statement s(m_db, m_path, "SELECT version, typeof(version), (SELECT COUNT(*) FROM schema_version) FROM schema_version");
  if (!s.step()) {
    if (!may_be_new) fail(m_path, "not an mxcosim results database (its schema_version table is empty)");
    return 0;
  }
  const std::int64_t version = s.integer(0);
  if (s.integer(2) != 1) fail(m_path, "schema_version holds " + std::to_string(s.integer(2)) + " versions, not one");
  if (s.text(1) != "integer" || version < 1) fail(m_path, "schema version " + s.text(0) + " is invalid");
  if (version > kSchemaVersion)
    fail(m_path, "schema version " + std::to_string(version) + " is newer than this program's (" +
                     std::to_string(kSchemaVersion) + "); use a newer mxcosim");
  return version;
}

std::string HistoryDb::journal_mode() {
  Statement s(m_db, m_path, "PRAGMA journal_mode");
  return s.step() ? s.text(0) : "";
}

void HistoryDb::in_transaction(const std::function<void()>& body) {
  // SQLite has no nested BEGIN: an inner body is part of the outer
  // transaction, which an exception rolls back whole.
  struct Depth {
    int& n;
    explicit Depth(int& d) : n(++d) {}
    ~Depth() { --n; }
  } depth(m_transaction_depth);
  if (depth.n > 1) return body();
  exec("BEGIN IMMEDIATE");
  try {
    body();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void HistoryDb::migrate() {
  in_transaction([&] {
    std::int64_t version = stored_version(true);
    if (version == 0) {
      exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
      Statement(m_db, m_path, "INSERT INTO schema_version (version) VALUES (0)").step();
    }
    for (; version < kSchemaVersion; ++version) {
      exec(kMigrations[version]);
      Statement(m_db, m_path, "UPDATE schema_version SET version = ?").bind(1, std::int64_t{version + 1}).step();
    }
    // Indexes change no table: each is made where missing, with no version of its own, so that
    // an older mxcosim still reads and writes the file (a nightly flow may mix revisions).
    // run_with_logs_in looks up a test folder's runs at every test's start: without it, a scan
    // of every result ever stored (a quarter of a second at 100 000 results).
    exec("CREATE INDEX IF NOT EXISTS results_by_log_dir ON results(log_dir, run_id)");
  });
}

std::optional<RunInfo> HistoryDb::find_run(const std::string& suite, const std::string& rev,
                                           const std::string& label) {
  Statement s(m_db, m_path, (std::string("SELECT ") + kRunColumns +
                     " FROM runs WHERE suite = ? AND rev = ? AND label = ? ORDER BY run_id DESC LIMIT 1")
                        .c_str());
  s.bind(1, suite).bind(2, rev).bind(3, label);
  if (!s.step()) return std::nullopt;
  return read_run(s);
}

std::int64_t HistoryDb::create_run(const RunInfo& key) {
  Statement s(m_db, m_path,
              "INSERT INTO runs (suite, rev, label, started_at, state, host, shard, planned) "
              "VALUES (?, ?, ?, ?, 'running', ?, ?, ?)");
  s.bind(1, key.suite).bind(2, key.rev).bind(3, key.label);
  s.bind(4, key.started_at.empty() ? utc_now() : key.started_at).bind(5, key.host).bind(6, key.shard);
  s.bind(7, key.planned);
  s.step();
  return sqlite3_last_insert_rowid(m_db);
}

std::optional<RunInfo> HistoryDb::resumable_run(const RunInfo& key, std::string* fresh_label) {
  // Labels of repeated complete runs get a suffix: "2025-01-01", "2025-01-01.2", ...
  std::string label = key.label;
  for (int n = 2;; ++n) {
    auto existing = find_run(key.suite, key.rev, label);
    if (!existing) break;
    if (existing->state != "complete") return existing;
    label = key.label + "." + std::to_string(n);
  }
  if (fresh_label) *fresh_label = label;
  return std::nullopt;
}

std::int64_t HistoryDb::open_run(const RunInfo& key, bool& resumed) {
  std::string label;
  const auto existing = resumable_run(key, &label);
  resumed = existing.has_value();
  if (existing) {
    set_run_state(existing->run_id, "running", "");
    return existing->run_id;
  }
  RunInfo fresh = key;
  fresh.label = label;
  return create_run(fresh);
}

void HistoryDb::set_run_state(std::int64_t run_id, const std::string& state, const std::string& finished_at) {
  Statement s(m_db, m_path, "UPDATE runs SET state = ?, finished_at = ? WHERE run_id = ?");
  s.bind(1, state).bind(2, finished_at).bind(3, run_id).step();
}

void HistoryDb::set_run_started(std::int64_t run_id, const std::string& started_at) {
  Statement s(m_db, m_path, "UPDATE runs SET started_at = ? WHERE run_id = ?");
  s.bind(1, started_at).bind(2, run_id).step();
}

void HistoryDb::set_run_planned(std::int64_t run_id, std::int64_t planned, const std::string& shard) {
  Statement s(m_db, m_path, "UPDATE runs SET planned = ?, shard = ? WHERE run_id = ?");
  s.bind(1, planned).bind(2, shard).bind(3, run_id).step();
}

void HistoryDb::add_to_plan(std::int64_t run_id, const std::vector<std::string>& test_ids, const std::string& shard,
                            std::int64_t unlisted) {
  in_transaction([&] {
    {
      Statement add(m_db, m_path, "INSERT OR IGNORE INTO planned_tests (run_id, test_id) VALUES (?, ?)");
      for (const auto& id : test_ids) {
        add.bind(1, run_id).bind(2, id).step();
        add.reset();
      }
    }
    Statement s(m_db, m_path,
                "UPDATE runs SET planned = ?1 + (SELECT COUNT(*) FROM planned_tests WHERE run_id = ?3), shard = ?2"
                " WHERE run_id = ?3");
    s.bind(1, unlisted).bind(2, shard).bind(3, run_id).step();
  });
}

void HistoryDb::remove_from_plan(std::int64_t run_id, const std::vector<std::string>& test_ids) {
  in_transaction([&] {
    std::int64_t removed = 0;
    {
      Statement del(m_db, m_path, "DELETE FROM planned_tests WHERE run_id = ? AND test_id = ?");
      for (const auto& id : test_ids) {
        del.bind(1, run_id).bind(2, id).step();
        removed += sqlite3_changes(m_db);
        del.reset();
      }
    }
    Statement s(m_db, m_path, "UPDATE runs SET planned = MAX(0, planned - ?) WHERE run_id = ?");
    s.bind(1, removed).bind(2, run_id).step();
  });
}

void HistoryDb::add_suite_tests(std::int64_t run_id, const std::vector<std::string>& test_ids) {
  in_transaction([&] {
    Statement add(m_db, m_path, "INSERT OR IGNORE INTO suite_tests (run_id, test_id) VALUES (?, ?)");
    for (const auto& id : test_ids) {
      add.bind(1, run_id).bind(2, id).step();
      add.reset();
    }
  });
}

std::vector<std::string> HistoryDb::suite_tests(std::int64_t run_id) {
  Statement s(m_db, m_path, "SELECT test_id FROM suite_tests WHERE run_id = ? ORDER BY rowid");
  s.bind(1, run_id);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

std::set<std::string> HistoryDb::test_ids(const char* sql, std::int64_t run_id) {
  Statement s(m_db, m_path, sql);
  s.bind(1, run_id);
  std::set<std::string> out;
  while (s.step()) out.insert(s.text(0));
  return out;
}

std::set<std::string> HistoryDb::planned_tests(std::int64_t run_id) {
  const std::vector<std::string> plan = plan_in_order(run_id);
  return {plan.begin(), plan.end()};
}

std::vector<std::string> HistoryDb::plan_in_order(std::int64_t run_id) {
  Statement s(m_db, m_path, "SELECT test_id FROM planned_tests WHERE run_id = ? ORDER BY rowid");
  s.bind(1, run_id);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

std::set<std::string> HistoryDb::finished_tests(std::int64_t run_id) {
  return test_ids("SELECT test_id FROM results WHERE run_id = ?", run_id);
}

void HistoryDb::insert(std::int64_t run_id, const TestRecord& r, bool copy_attempts) {
  Statement s(m_db, m_path,
              "INSERT INTO results (run_id, test_id, test_index, status, message, seed, tags, command, exit_code,"
              " wall_seconds, finished_at, attempts, cycles_rtl, cycles_model, instructions, mismatch_count,"
              " sim_time_ns, utilisation, bandwidth_gbps, results_json, log_dir)"
              " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,"
              "  CASE WHEN ?22 THEN ?12"
              "  ELSE COALESCE((SELECT attempts FROM results WHERE run_id = ?1 AND test_id = ?2), 0) + ?12 END,"
              "  ?13,?14,?15,?16,?17,?18,?19,?20,?21)"
              " ON CONFLICT(run_id, test_id) DO UPDATE SET test_index=excluded.test_index, status=excluded.status,"
              " message=excluded.message, seed=excluded.seed, tags=excluded.tags, command=excluded.command,"
              " exit_code=excluded.exit_code, wall_seconds=excluded.wall_seconds, finished_at=excluded.finished_at,"
              " attempts=excluded.attempts, cycles_rtl=excluded.cycles_rtl, cycles_model=excluded.cycles_model,"
              " instructions=excluded.instructions, mismatch_count=excluded.mismatch_count,"
              " sim_time_ns=excluded.sim_time_ns, utilisation=excluded.utilisation,"
              " bandwidth_gbps=excluded.bandwidth_gbps, results_json=excluded.results_json,"
              " log_dir=excluded.log_dir");
  s.bind(1, run_id).bind(2, r.test_id).bind(3, r.test_index).bind(4, r.status).bind(5, r.message);
  s.bind(6, r.seed).bind(7, r.tags).bind(8, r.command);
  s.bind(9, r.exit_code ? std::optional<std::int64_t>(*r.exit_code) : std::nullopt);
  s.bind(10, r.wall_seconds).bind(11, r.finished_at.empty() ? utc_now() : r.finished_at).bind(12, r.attempts);
  s.bind(13, r.cycles_rtl).bind(14, r.cycles_model).bind(15, r.instructions).bind(16, r.mismatch_count);
  s.bind(17, r.sim_time_ns).bind(18, r.utilisation).bind(19, r.bandwidth_gbps);
  if (r.results_json.empty())
    s.bind(20, std::optional<double>{});
  else
    s.bind(20, r.results_json);
  s.bind(21, r.log_dir).bind(22, std::int64_t{copy_attempts});
  s.step();
}

void HistoryDb::record(std::int64_t run_id, const TestRecord& rec) { record_all(run_id, {rec}); }

void HistoryDb::record_all(std::int64_t run_id, const std::vector<TestRecord>& recs, bool copy_attempts) {
  in_transaction([&] {
    for (const auto& r : recs) insert(run_id, r, copy_attempts);
  });
}

std::optional<std::int64_t> HistoryDb::run_with_logs_in(const std::string& dir, std::int64_t run_id) {
  Statement s(m_db, m_path, "SELECT MAX(run_id) FROM results WHERE log_dir = ? AND run_id != ?");
  s.bind(1, dir).bind(2, run_id);
  if (!s.step()) return std::nullopt;
  return s.opt_int(0);
}

void HistoryDb::move_logs(std::int64_t run_id, const std::string& from, const std::string& to) {
  Statement s(m_db, m_path, "UPDATE results SET log_dir = ? WHERE run_id = ? AND log_dir = ?");
  s.bind(1, to).bind(2, run_id).bind(3, from);
  s.step();
}

std::vector<RunInfo> HistoryDb::runs() {
  Statement s(m_db, m_path, (std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY started_at, run_id").c_str());
  std::vector<RunInfo> out;
  while (s.step()) out.push_back(read_run(s));
  return out;
}

std::optional<RunInfo> HistoryDb::run(std::int64_t run_id) {
  Statement s(m_db, m_path, (std::string("SELECT ") + kRunColumns + " FROM runs WHERE run_id = ?").c_str());
  s.bind(1, run_id);
  if (!s.step()) return std::nullopt;
  return read_run(s);
}

std::vector<TestRecord> HistoryDb::results(std::int64_t run_id) {
  Statement s(m_db, m_path,
              "SELECT test_id, test_index, status, message, seed, tags, command, exit_code, wall_seconds,"
              " finished_at, attempts, cycles_rtl, cycles_model, instructions, mismatch_count, sim_time_ns,"
              " utilisation, bandwidth_gbps, results_json, log_dir"
              " FROM results WHERE run_id = ? ORDER BY test_index, test_id");
  s.bind(1, run_id);
  std::vector<TestRecord> out;
  while (s.step()) {
    TestRecord r;
    r.test_id = s.text(0);
    r.test_index = s.integer(1);
    r.status = s.text(2);
    r.message = s.text(3);
    r.seed = s.text(4);
    r.tags = s.text(5);
    r.command = s.text(6);
    if (auto e = s.opt_int(7)) r.exit_code = static_cast<int>(*e);
    r.wall_seconds = s.opt_double(8).value_or(0);
    r.finished_at = s.text(9);
    r.attempts = s.integer(10);
    r.cycles_rtl = s.opt_int(11);
    r.cycles_model = s.opt_int(12);
    r.instructions = s.opt_int(13);
    r.mismatch_count = s.opt_int(14);
    r.sim_time_ns = s.opt_double(15);
    r.utilisation = s.opt_double(16);
    r.bandwidth_gbps = s.opt_double(17);
    r.results_json = s.text(18);
    r.log_dir = s.text(19);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<RunStats> HistoryDb::run_stats(const std::string& suite) {
  Statement s(m_db, m_path,
              "SELECT r.run_id, SUM(x.status = 'pass'), SUM(x.status = 'fail'), SUM(x.status = 'error'),"
              " SUM(x.status = 'skipped'),"
              " AVG(CASE WHEN x.cycles_model IS NOT NULL AND x.cycles_rtl > 0"
              "     THEN ABS(x.cycles_model - x.cycles_rtl) * 100.0 / x.cycles_rtl END),"
              " TOTAL(x.wall_seconds),"
              // As the report of one run counts them: planned, no result.
              " (SELECT COUNT(*) FROM planned_tests p WHERE p.run_id = r.run_id AND NOT EXISTS"
              "  (SELECT 1 FROM results y WHERE y.run_id = p.run_id AND y.test_id = p.test_id))"
              " FROM runs r LEFT JOIN results x ON x.run_id = r.run_id WHERE r.suite = ?"
              " GROUP BY r.run_id ORDER BY r.started_at, r.run_id");
  s.bind(1, suite);
  std::vector<RunStats> out;
  while (s.step()) {
    RunStats r;
    r.run_id = s.integer(0);
    r.pass = s.integer(1);
    r.fail = s.integer(2);
    r.error = s.integer(3);
    r.skipped = s.integer(4);
    r.mean_abs_error_pct = s.opt_double(5);
    r.wall_seconds = s.opt_double(6).value_or(0);
    r.not_run = s.integer(7);
    out.push_back(r);
  }
  return out;
}

}  // namespace mxc::regress
