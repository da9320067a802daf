// The history database: schema, migrations, WAL, runs, resume, merge.
#include <sqlite3.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "regress/db_merge.h"
#include "regress/history_db.h"
#include "tests/temp_dir.h"

using namespace mxc::regress;
using mxc::testing::TempDir;
using mxc::testing::write_text;

namespace {
TestRecord rec(const std::string& id, std::int64_t index, const std::string& status) {
  TestRecord r;
  r.test_id = id;
  r.test_index = index;
  r.status = status;
  r.wall_seconds = 1.5;
  r.cycles_rtl = 100 + index;
  return r;
}
RunInfo key(const std::string& suite, const std::string& rev, const std::string& label) {
  RunInfo k;
  k.suite = suite;
  k.rev = rev;
  k.label = label;
  return k;
}
// Shard K/2's database sK.db as `regress --shard K/2` leaves it, made or
// resumed: tK has a result, and uK too once `finished`. With `plan` the run
// plans those test ids; without one it is a run recorded before plans were
// kept, planning 2 tests by count.
void shard_db(const TempDir& dir, int shard, bool finished, const std::vector<std::string>& plan = {}) {
  HistoryDb db(dir / ("s" + std::to_string(shard) + ".db"));
  RunInfo k = key("nightly", "abc", "slurm-42");
  k.shard = std::to_string(shard) + "/2";
  k.planned = plan.empty() ? 2 : 0;
  const auto found = db.find_run(k.suite, k.rev, k.label);
  const auto id = found ? found->run_id : db.create_run(k);
  if (!plan.empty()) db.add_to_plan(id, plan, k.shard);
  const std::string n = std::to_string(shard);
  if (!db.finished_tests(id).count("t" + n)) db.record(id, rec("t" + n, shard, "pass"));
  if (finished) db.record(id, rec("u" + n, shard + 10, "pass"));
  db.set_run_state(id, finished ? "complete" : "interrupted", "2025-01-01T00:00:00Z");
}
}  // namespace

TEST_CASE("a new database is at the current schema version, in WAL mode") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  CHECK(db.schema_version() == HistoryDb::kSchemaVersion);
  CHECK(db.journal_mode() == "wal");
}

TEST_CASE("results round-trip with nulls kept null") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  bool resumed = true;
  const auto run = db.open_run(key("smoke", "abc", "2025-01-01"), resumed);
  CHECK_FALSE(resumed);
  TestRecord r = rec("g/b", 1, "fail");
  r.message = "mismatch";
  r.exit_code = 1;
  r.cycles_model = std::nullopt;
  r.utilisation = 0.25;
  r.results_json = R"({"a":1})";
  db.record(run, r);
  db.record(run, rec("g/a", 0, "pass"));
  const auto back = db.results(run);
  REQUIRE(back.size() == 2);
  CHECK(back[0].test_id == "g/a");  // suite order, not insertion order
  CHECK(back[1].message == "mismatch");
  CHECK(back[1].exit_code == 1);
  CHECK(back[1].cycles_rtl == 101);
  CHECK_FALSE(back[1].cycles_model);
  CHECK(back[1].utilisation == 0.25);
  CHECK(back[1].results_json == R"({"a":1})");
  CHECK(back[1].attempts == 1);
  // Recording a test again replaces it and counts the attempt.
  db.record(run, rec("g/b", 1, "pass"));
  const auto again = db.results(run);
  CHECK(again[1].status == "pass");
  CHECK(again[1].attempts == 2);
  CHECK(db.finished_tests(run) == std::set<std::string>{"g/a", "g/b"});
}

TEST_CASE("an unfinished run is resumed, a complete one starts a new run with a suffixed label") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  bool resumed = false;
  const auto first = db.open_run(key("smoke", "abc", "day"), resumed);
  db.record(first, rec("t1", 0, "pass"));
  const auto again = db.open_run(key("smoke", "abc", "day"), resumed);
  CHECK(resumed);
  CHECK(again == first);
  db.set_run_state(first, "complete", utc_now());
  const auto next = db.open_run(key("smoke", "abc", "day"), resumed);
  CHECK_FALSE(resumed);
  CHECK(next != first);
  CHECK(db.run(next)->label == "day.2");
  CHECK(db.finished_tests(next).empty());
  const auto other_rev = db.open_run(key("smoke", "def", "day"), resumed);
  CHECK_FALSE(resumed);
  CHECK(db.run(other_rev)->label == "day");
}

TEST_CASE("a version 1 database is migrated with its data kept, a newer one is refused") {
  TempDir dir;
  const std::string path = dir / "old.db";
  {
    // Schema 1 written by hand, as an older build left it.
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &raw) == SQLITE_OK);
    const char* sql =
        "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);"
        "CREATE TABLE runs (run_id INTEGER PRIMARY KEY, suite TEXT NOT NULL, rev TEXT NOT NULL, label TEXT NOT "
        "NULL, started_at TEXT NOT NULL, finished_at TEXT, state TEXT NOT NULL, host TEXT);"
        "CREATE TABLE results (run_id INTEGER NOT NULL, test_id TEXT NOT NULL, test_index INTEGER NOT NULL,"
        " status TEXT NOT NULL, message TEXT, seed TEXT, tags TEXT, command TEXT, exit_code INTEGER,"
        " wall_seconds REAL, finished_at TEXT, attempts INTEGER NOT NULL DEFAULT 1, cycles_rtl INTEGER,"
        " cycles_model INTEGER, instructions INTEGER, mismatch_count INTEGER, sim_time_ns REAL, utilisation REAL,"
        " bandwidth_gbps REAL, results_json TEXT, PRIMARY KEY (run_id, test_id));"
        "INSERT INTO runs VALUES (1, 'smoke', 'r1', 'd1', '2024-01-01T00:00:00Z', NULL, 'complete', 'h');"
        "INSERT INTO results (run_id, test_id, test_index, status, cycles_rtl) VALUES (1, 'x', 0, 'pass', 77);";
    REQUIRE(sqlite3_exec(raw, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(raw);
  }
  {
    HistoryDb db(path);
    CHECK(db.schema_version() == HistoryDb::kSchemaVersion);
    const auto runs = db.runs();
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].shard.empty());
    CHECK(runs[0].planned == 0);
    const auto res = db.results(1);
    REQUIRE(res.size() == 1);
    CHECK(res[0].cycles_rtl == 77);
    CHECK(res[0].log_dir.empty());
    CHECK(db.planned_tests(1).empty());
    db.exec("UPDATE schema_version SET version = 99");
  }
  CHECK_THROWS_WITH(HistoryDb(path), "results database '" + path +
                                         "': schema version 99 is newer than this program's (4); use a newer mxcosim");
  CHECK_THROWS_WITH(HistoryDb("/nonexistent/dir/r.db"),
                    Catch::Matchers::StartsWith("cannot open results database '/nonexistent/dir/r.db'"));
}

namespace {
// Runs SQL on a file directly, as another program would.
void raw_sql(const std::string& path, const std::string& sql) {
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &raw) == SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &err);
  INFO((err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(raw);
  REQUIRE(rc == SQLITE_OK);
}
/// The names of the file's tables (or indexes, with `type` "index"), in order, each with a space after it.
std::string table_names(const std::string& path, const std::string& type = "table") {
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  std::string names;
  sqlite3_exec(
      raw, ("SELECT name FROM sqlite_master WHERE type = '" + type + "' AND sql IS NOT NULL ORDER BY name").c_str(),
      [](void* out, int, char** v, char**) {
        *static_cast<std::string*>(out) += std::string(v[0]) + " ";
        return 0;
      },
      &names, nullptr);
  sqlite3_close(raw);
  return names;
}
}  // namespace

TEST_CASE("a results database has an index of log folders: made where missing when written and not when read") {
  TempDir dir;
  const std::string path = dir / "r.db";
  HistoryDb(path).create_run(key("s", "r", "l"));
  // Each test's start looks up the runs that used its folder (run_with_logs_in).
  CHECK(table_names(path, "index") == "results_by_log_dir runs_by_suite ");
  // A file written by a build without it (no schema version of its own: an older build still
  // opens the file).
  raw_sql(path, "DROP INDEX results_by_log_dir");
  HistoryDb(path, HistoryDb::Access::read).runs();
  CHECK(table_names(path, "index") == "runs_by_suite ");
  HistoryDb(path).runs();
  CHECK(table_names(path, "index") == "results_by_log_dir runs_by_suite ");
  CHECK(HistoryDb(path).schema_version() == HistoryDb::kSchemaVersion);
}

TEST_CASE("an invalid schema version is an error naming the file and the version") {
  TempDir dir;
  const std::string path = dir / "r.db";
  { HistoryDb db(path); }
  // Read as an index into the migrations, -1 was undefined behaviour.
  for (const char* v : {"-1", "0", "'abc'", "2.5"}) {
    raw_sql(path, std::string("UPDATE schema_version SET version = ") + v);
    const std::string shown = v == std::string("'abc'") ? "abc" : v;
    CHECK_THROWS_WITH(HistoryDb(path), "results database '" + path + "': schema version " + shown + " is invalid");
    CHECK_THROWS_WITH(HistoryDb(path, HistoryDb::Access::read),
                      "results database '" + path + "': schema version " + shown + " is invalid");
  }
  raw_sql(path, "INSERT INTO schema_version VALUES (2)");
  CHECK_THROWS_WITH(HistoryDb(path), "results database '" + path + "': schema_version holds 2 versions, not one");
}

TEST_CASE("reading a database changes nothing, and a file that is not a results database is refused") {
  TempDir dir;
  // Another program's database: it used to get the results tables added.
  const std::string other = dir / "other.db";
  raw_sql(other, "CREATE TABLE foo (x INTEGER)");
  const std::string refusal = "': not an mxcosim results database (it has no schema_version table)";
  CHECK_THROWS_WITH(HistoryDb(other, HistoryDb::Access::read), "results database '" + other + refusal);
  CHECK(table_names(other) == "foo ");
  // Nor is it written when merging into it.
  CHECK_THROWS_WITH(HistoryDb(other), "results database '" + other + refusal);
  CHECK(table_names(other) == "foo ");
  // An empty file stays empty.
  const std::string empty = dir / "empty.db";
  write_text(empty, "");
  CHECK_THROWS_WITH(HistoryDb(empty, HistoryDb::Access::read), "results database '" + empty + refusal);
  CHECK(std::filesystem::file_size(empty) == 0);
  // Written to, it is a new database (a name from mktemp): it holds nothing to lose.
  {
    HistoryDb db(empty);
    db.create_run(key("s", "r", "l"));
  }
  CHECK(HistoryDb(empty, HistoryDb::Access::read).runs().size() == 1);
  // A results database opened to read is not written to.
  const std::string good = dir / "good.db";
  {
    HistoryDb db(good);
    db.create_run(key("s", "r", "l"));
  }
  HistoryDb reader(good, HistoryDb::Access::read);
  CHECK(reader.runs().size() == 1);
  CHECK_THROWS_WITH(reader.create_run(key("s", "r", "m")),
                    "results database '" + good + "': sqlite: attempt to write a readonly database");
  // A missing table is named with the file.
  raw_sql(good, "DROP TABLE results");
  CHECK_THROWS_WITH(HistoryDb(good, HistoryDb::Access::read).results(1),
                    "results database '" + good + "': sqlite: no such table: results");
}

TEST_CASE("a database whose -wal file cannot be made (a folder the user may not write) is read as it is") {
  TempDir dir;
  // A name an SQLite URI must escape.
  const std::filesystem::path folder = dir.path() / "ro 50%?#x";
  std::filesystem::create_directories(folder);
  const std::string path = (folder / "r.db").string();
  {
    HistoryDb db(path);
    db.create_run(key("s", "r", "l"));
  }
  REQUIRE_FALSE(std::filesystem::exists(path + "-wal"));  // closed: its -wal and -shm went with it
  // A folder in the place of its -wal: no user can make the file there, root included.
  std::filesystem::create_directory(path + "-wal");
  {
    HistoryDb reader(path, HistoryDb::Access::read);
    REQUIRE(reader.runs().size() == 1);
    CHECK(reader.runs()[0].label == "l");
  }
  std::filesystem::remove(path + "-wal");
  // The folder itself read-only: root writes it all the same, so only another user sees it refused.
  std::filesystem::permissions(folder, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                                           std::filesystem::perms::group_read | std::filesystem::perms::group_exec |
                                           std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
  if (geteuid() != 0) {
    HistoryDb reader(path, HistoryDb::Access::read);
    CHECK(reader.runs().size() == 1);
    CHECK_FALSE(std::filesystem::exists(path + "-wal"));
  } else {
    WARN("running as root, whom a folder's permissions do not stop: the read-only folder itself is not tested");
  }
  std::filesystem::permissions(folder, std::filesystem::perms::owner_all);
}

TEST_CASE("a schema 2 database is read as it is, its runs without plans") {
  TempDir dir;
  const std::string path = dir / "v2.db";
  {
    HistoryDb db(path);
    RunInfo k = key("s", "r", "l");
    k.planned = 5;
    db.create_run(k);
  }
  raw_sql(path, "DROP TABLE planned_tests; DROP TABLE suite_tests; UPDATE schema_version SET version = 2");
  const std::string before = mxc::testing::read_text(path);
  {
    // Reading neither migrates the file nor needs to write it (it may not be writable).
    HistoryDb reader(path, HistoryDb::Access::read);
    CHECK(reader.schema_version() == 2);
    const auto runs = reader.runs();
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].planned == 5);
    CHECK(reader.planned_tests(runs[0].run_id).empty());
  }
  CHECK(mxc::testing::read_text(path) == before);
  CHECK(table_names(path).find("planned_tests") == std::string::npos);
  // Opened to write, it is carried forward.
  CHECK(HistoryDb(path).schema_version() == HistoryDb::kSchemaVersion);
  CHECK(table_names(path).find("planned_tests") != std::string::npos);
}

TEST_CASE("shard databases merge into one run per suite, revision and label") {
  TempDir dir;
  for (int shard = 1; shard <= 2; ++shard) {
    HistoryDb db(dir / ("s" + std::to_string(shard) + ".db"));
    RunInfo k = key("nightly", "abc", "slurm-42");
    k.shard = std::to_string(shard) + "/2";
    k.planned = 2;
    const auto id = db.create_run(k);
    db.record(id, rec("t" + std::to_string(shard), shard, "pass"));
    db.record(id, rec("u" + std::to_string(shard), shard + 10, shard == 2 ? "fail" : "pass"));
    db.set_run_state(id, "complete", "2025-01-01T0" + std::to_string(shard) + ":00:00Z");
  }
  HistoryDb all(dir / "all.db");
  const auto m = merge_databases(all, {dir / "s1.db", dir / "s2.db"});
  CHECK(m.results == 4);
  const auto runs = all.runs();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].state == "complete");
  CHECK(runs[0].planned == 4);
  CHECK(runs[0].shard == "1/2,2/2");
  CHECK(runs[0].finished_at == "2025-01-01T02:00:00Z");
  const auto res = all.results(runs[0].run_id);
  REQUIRE(res.size() == 4);
  CHECK(res[0].test_id == "t1");
  CHECK(res[3].test_id == "u2");
  CHECK(res[3].status == "fail");
  const auto stats = all.run_stats("nightly");
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].pass == 3);
  CHECK(stats[0].fail == 1);
  CHECK(stats[0].wall_seconds == Approx(6.0));
}

TEST_CASE("merging a shard again changes nothing but its results, a resumed shard completes the run") {
  TempDir dir;
  shard_db(dir, 1, true);
  shard_db(dir, 2, false);  // preempted after one test
  HistoryDb all(dir / "all.db");
  merge_databases(all, {dir / "s1.db", dir / "s2.db"});
  auto merged = all.runs().at(0);
  CHECK(merged.planned == 4);
  CHECK(merged.state == "interrupted");
  // The same shard again (the merge step repeated): planned, shards and
  // attempts stay; they used to grow to 6, "1/2,2/2,1/2" and 2.
  merge_databases(all, {dir / "s1.db", dir / "s1.db"});
  merged = all.runs().at(0);
  CHECK(merged.planned == 4);
  CHECK(merged.shard == "1/2,2/2");
  CHECK(merged.state == "interrupted");
  for (const auto& r : all.results(merged.run_id)) CHECK(r.attempts == 1);
  // The resubmitted shard finishes; merging it again completes the run.
  shard_db(dir, 2, true);
  merge_databases(all, {dir / "s2.db"});
  merged = all.runs().at(0);
  CHECK(merged.planned == 4);
  CHECK(merged.shard == "1/2,2/2");
  CHECK(merged.state == "complete");
  CHECK(all.results(merged.run_id).size() == 4);
  for (const auto& r : all.results(merged.run_id)) CHECK(r.attempts == 1);
  // A merged database merged on again is one more copy of the same shards.
  HistoryDb again(dir / "again.db");
  merge_databases(again, {dir / "all.db", dir / "s1.db"});
  CHECK(again.runs().at(0).planned == 4);
  CHECK(again.runs().at(0).state == "complete");
}

TEST_CASE("a run's plan is the union of the test ids added to it, and planned is its size") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  const auto run = db.create_run(key("s", "r", "l"));
  db.add_to_plan(run, {"a1", "a2", "a3"}, "");
  db.add_to_plan(run, {"a2", "b1"}, "");
  CHECK(db.planned_tests(run) == std::set<std::string>{"a1", "a2", "a3", "b1"});
  CHECK(db.run(run)->planned == 4);
  // Tests known by number only count on top of the listed ones.
  db.add_to_plan(run, {}, "1/2,2/2", 3);
  CHECK(db.run(run)->planned == 7);
  CHECK(db.run(run)->shard == "1/2,2/2");
  CHECK(db.planned_tests(db.create_run(key("s", "r", "m"))).empty());
}

TEST_CASE("merging carries the shards' plans: the merged plan is their union") {
  TempDir dir;
  shard_db(dir, 1, true, {"t1", "u1"});
  shard_db(dir, 2, false, {"t2", "u2"});  // preempted after one test
  HistoryDb all(dir / "all.db");
  merge_databases(all, {dir / "s1.db", dir / "s2.db"});
  auto merged = all.runs().at(0);
  CHECK(all.planned_tests(merged.run_id) == std::set<std::string>{"t1", "t2", "u1", "u2"});
  CHECK(merged.planned == 4);
  CHECK(merged.state == "interrupted");
  // Merging a shard again adds nothing.
  merge_databases(all, {dir / "s1.db", dir / "s1.db"});
  merged = all.runs().at(0);
  CHECK(all.planned_tests(merged.run_id).size() == 4);
  CHECK(merged.planned == 4);
  CHECK(merged.state == "interrupted");
  // Shard 2 resumed finishes u2, and then with another --tag plans v2 too:
  // the merged plan takes v2 and the run is not complete without it.
  shard_db(dir, 2, true, {"t2", "u2"});
  {
    HistoryDb s2(dir / "s2.db");
    const auto id = s2.runs().at(0).run_id;
    s2.add_to_plan(id, {"v2"}, "2/2");
    s2.set_run_state(id, "interrupted", "2025-01-01T00:00:00Z");
  }
  merge_databases(all, {dir / "s2.db"});
  merged = all.runs().at(0);
  CHECK(merged.planned == 5);
  CHECK(merged.state == "interrupted");
  {
    HistoryDb s2(dir / "s2.db");
    const auto id = s2.runs().at(0).run_id;
    s2.record(id, rec("v2", 20, "pass"));
    s2.set_run_state(id, "complete", "2025-01-01T00:00:00Z");
  }
  merge_databases(all, {dir / "s2.db"});
  merged = all.runs().at(0);
  CHECK(merged.planned == 5);
  CHECK(merged.shard == "1/2,2/2");
  CHECK(merged.state == "complete");
  // A merged database merged on again keeps the plan.
  HistoryDb again(dir / "again.db");
  merge_databases(again, {dir / "all.db", dir / "s1.db"});
  CHECK(again.planned_tests(again.runs().at(0).run_id).size() == 5);
  CHECK(again.runs().at(0).planned == 5);
  CHECK(again.runs().at(0).state == "complete");
}

TEST_CASE("a shard recorded before plans were kept merges with one that has a plan") {
  TempDir dir;
  shard_db(dir, 1, true);  // 2 tests planned by count
  shard_db(dir, 2, true, {"t2", "u2"});
  HistoryDb all(dir / "all.db");
  merge_databases(all, {dir / "s1.db", dir / "s2.db", dir / "s1.db"});
  const auto merged = all.runs().at(0);
  CHECK(merged.planned == 4);
  CHECK(all.planned_tests(merged.run_id) == std::set<std::string>{"t2", "u2"});
  CHECK(merged.state == "complete");
  HistoryDb again(dir / "again.db");
  merge_databases(again, {dir / "all.db", dir / "s2.db"});
  CHECK(again.runs().at(0).planned == 4);
  CHECK(again.runs().at(0).state == "complete");
}

TEST_CASE("text is read back whole: a NUL byte of a test's output does not end it") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  const auto run = db.create_run(key("s", "r", "l"));
  TestRecord r = rec(std::string("g/a\0b", 5), 0, "error");
  r.message = std::string("exit code 5: before\0after", 25);
  db.record(run, r);
  const auto back = db.results(run);
  REQUIRE(back.size() == 1);
  CHECK(back[0].test_id == std::string("g/a\0b", 5));
  CHECK(back[0].message == std::string("exit code 5: before\0after", 25));
  CHECK(back[0].message.size() == 25);
}

TEST_CASE("a schema 3 database is read as it is, its runs without shards' suites, and merges") {
  TempDir dir;
  const std::string path = dir / "v3.db";
  {
    HistoryDb db(path);
    RunInfo k = key("s", "r", "l");
    k.shard = "1/2";
    const auto id = db.create_run(k);
    db.add_to_plan(id, {"a"}, "1/2");
    db.record(id, rec("a", 0, "pass"));
  }
  raw_sql(path, "DROP TABLE suite_tests; UPDATE schema_version SET version = 3");
  const std::string before = mxc::testing::read_text(path);
  {
    HistoryDb reader(path, HistoryDb::Access::read);
    CHECK(reader.schema_version() == 3);
    CHECK(reader.suite_tests(reader.runs().at(0).run_id).empty());
    HistoryDb all(dir / "all.db");
    merge_databases(all, {path});
    CHECK(all.planned_tests(all.runs().at(0).run_id) == std::set<std::string>{"a"});
  }
  CHECK(mxc::testing::read_text(path) == before);
  CHECK(table_names(path).find("suite_tests") == std::string::npos);
}

namespace {
// Shard K/2 of suite "nightly" (t1 u1 t2 u2 ... in two shards), finished,
// started at `started_at`, in sK.db.
void shard_started(const TempDir& dir, int shard, const std::string& started_at) {
  HistoryDb db(dir / ("s" + std::to_string(shard) + ".db"));
  RunInfo k = key("nightly", "abc", "slurm-42");
  k.shard = std::to_string(shard) + "/2";
  k.started_at = started_at;
  const auto id = db.create_run(k);
  const std::string n = std::to_string(shard);
  db.add_to_plan(id, {"t" + n, "u" + n}, k.shard);
  db.record(id, rec("t" + n, shard, "pass"));
  db.record(id, rec("u" + n, shard + 10, "pass"));
  db.set_run_state(id, "complete", "2025-01-01T05:00:00Z");
}
}  // namespace

TEST_CASE("a refused merge leaves the database it merges into as it was") {
  TempDir dir;
  shard_db(dir, 1, true, {"t1", "u1"});
  shard_db(dir, 2, true, {"t2", "u2"});
  {
    HistoryDb all(dir / "all.db");
    merge_databases(all, {dir / "s1.db", dir / "s2.db"});
  }
  HistoryDb half(dir / "half.db");
  merge_databases(half, {dir / "s1.db"});
  // all.db's run holds shards 1/2 and 2/2, and 1/2 is in half.db already: refused, and
  // shard 2/2's results (t2, u2) must not have been copied in before the refusal.
  CHECK_THROWS_WITH(merge_databases(half, {dir / "all.db"}),
                    Catch::Matchers::Contains("holds shards 1/2,2/2, some of them already merged as part of 1/2"));
  const auto run = half.runs().at(0);
  CHECK(half.finished_tests(run.run_id) == std::set<std::string>{"t1", "u1"});
  CHECK(half.run(run.run_id)->shard == "1/2");
  CHECK(half.run(run.run_id)->planned == 2);
  // A merge failing at its second source leaves nothing of its first.
  write_text(dir / "text.db", "not a database\n");
  HistoryDb fresh(dir / "fresh.db");
  CHECK_THROWS(merge_databases(fresh, {dir / "s2.db", dir / "text.db"}));
  CHECK(fresh.runs().empty());
}

TEST_CASE("a merged run starts when its earliest shard started, in whichever order they merge") {
  TempDir dir;
  shard_started(dir, 1, "2025-01-01T02:00:00Z");
  shard_started(dir, 2, "2025-01-01T01:00:00Z");
  for (const bool later_first : {true, false}) {
    INFO("shard 1/2 (the later one) merged first: " << later_first);
    const std::string path = dir / (later_first ? "a.db" : "b.db");
    HistoryDb all(path);
    // Another run of the suite started between the shards: the merged run is older.
    RunInfo other = key("nightly", "def", "manual");
    other.started_at = "2025-01-01T01:30:00Z";
    all.create_run(other);
    if (later_first)
      merge_databases(all, {dir / "s1.db", dir / "s2.db"});
    else
      merge_databases(all, {dir / "s2.db", dir / "s1.db"});
    const auto runs = all.runs();  // oldest first
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].label == "slurm-42");
    CHECK(runs[0].started_at == "2025-01-01T01:00:00Z");
    CHECK(runs[1].label == "manual");
  }
}
