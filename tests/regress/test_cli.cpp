// `mxcosim regress` and `mxcosim report` end to end on the real binary: the
// smoke suite with -j 2, and a suite with an injected fault.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "regress/history_db.h"
#include "regress/outcome.h"
#include "regress/suite.h"
#include "tests/temp_dir.h"

using namespace mxc::regress;
using namespace mxc::testing;

namespace {

int run(const std::vector<std::string>& args, const std::string& log) {
  const std::string cmd = shell_join(args) + " > " + shell_join({log}) + " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Starts `args` (a program path first) with standard output and error into `log`, `in_child`
/// run in the child first (a signal disposition to hand down through exec); the caller waits.
pid_t start_logged(const std::vector<std::string>& args, const std::string& log, void (*in_child)() = nullptr) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (in_child) in_child();
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

std::string attr(const std::string& xml, const std::string& name) {
  const auto at = xml.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  const auto start = at + name.size() + 3;
  return xml.substr(start, xml.find('"', start) - start);
}

}  // namespace

TEST_CASE("mxcosim regress runs the smoke suite with -j 2 into consistent results, JUnit and report") {
  TempDir dir;
  const std::string out = dir / "smoke";
  const int rc = run({MXCOSIM_BIN, "regress", MXCOSIM_SOURCE_DIR "/regress/smoke.yaml", "-j", "2", "--out", out,
                      "--rev", "testrev"},
                     dir / "log.txt");
  INFO(read_text(dir / "log.txt"));
  REQUIRE(rc == 0);
  for (const char* f : {"results.db", "junit.xml", "report.html", "results.csv", "results.json"})
    CHECK(std::filesystem::exists(std::filesystem::path(out) / f));

  const Suite suite = load_suite(MXCOSIM_SOURCE_DIR "/regress/smoke.yaml");
  HistoryDb db(out + "/results.db");
  const auto runs = db.runs();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].state == "complete");
  CHECK(runs[0].rev == "testrev");
  const auto results = db.results(runs[0].run_id);
  REQUIRE(results.size() == suite.tests.size());
  std::size_t skipped = 0;
  for (const auto& r : results) {
    CHECK((r.status == "pass" || r.status == "skipped"));
    if (r.status == "skipped") {
      ++skipped;
      CHECK(r.message.rfind("size not built: no RTL of a 8x8 array", 0) == 0);
    } else {
      CHECK(r.cycles_rtl.value_or(0) > 0);
      CHECK(r.results_json.find("\"schema_version\"") != std::string::npos);
    }
  }
  const std::string junit = read_text(out + "/junit.xml");
  CHECK(attr(junit, "tests") == std::to_string(suite.tests.size()));
  CHECK(count_of(junit, "<testcase ") == suite.tests.size());
  CHECK(attr(junit, "failures") == "0");
  CHECK(attr(junit, "errors") == "0");
  CHECK(attr(junit, "skipped") == std::to_string(skipped));
  CHECK(count_of(junit, "<skipped ") == skipped);

  // The reports come back identical from the database alone.
  REQUIRE(run({MXCOSIM_BIN, "report", "--db", out + "/results.db", "--junit", dir / "again.xml", "--html",
               dir / "again.html"},
              dir / "log2.txt") == 0);
  CHECK(read_text(dir / "again.xml") == junit);
  CHECK(read_text(dir / "again.html") == read_text(out + "/report.html"));
  // A report that cannot be written whole (a full disk) is an error, not a silent exit 0.
  for (const char* option : {"--junit", "--html", "--csv", "--json"}) {
    INFO(option);
    CHECK(run({MXCOSIM_BIN, "report", "--db", out + "/results.db", option, "/dev/full"}, dir / "log3.txt") == 2);
    CHECK(read_text(dir / "log3.txt").find("/dev/full: writing failed") != std::string::npos);
  }
}

TEST_CASE("a suite with an injected fault fails exactly that test, with the mismatch and a reproduce command") {
  TempDir dir;
  write_text(dir / "fault.yaml",
             "suite: fault\ngroups:\n"
             "  - {name: clean, args: {rows: 4, cols: 4, m: 4, k: 4, n: 8}}\n"
             "  - {name: flipped, args: {rows: 4, cols: 4, m: 4, k: 4, n: 8, inject-fault: 5}}\n"
             "  - {name: other, args: {rows: 4, cols: 4, m: 8, k: 4, n: 4}, seeds: [3]}\n");
  const std::string out = dir / "out";
  const int rc = run({MXCOSIM_BIN, "regress", dir / "fault.yaml", "-j", "2", "--out", out, "--no-progress"},
                     dir / "log.txt");
  const std::string log = read_text(dir / "log.txt");
  INFO(log);
  CHECK(rc == 1);
  const std::string junit = read_text(out + "/junit.xml");
  CHECK(attr(junit, "tests") == "3");
  CHECK(attr(junit, "failures") == "1");
  CHECK(attr(junit, "errors") == "0");
  CHECK(count_of(junit, "<failure ") == 1);
  const auto tc = junit.find("<testcase classname=\"fault\" name=\"flipped\"");
  REQUIRE(tc != std::string::npos);
  const std::string flipped = junit.substr(tc, junit.find("</testcase>", tc) - tc);
  // The first mismatch: the checker, the element, then both values.
  const auto failure = flipped.find("<failure message=\"data scoreboard chip0.C[0][5] ");
  CHECK(failure != std::string::npos);
  CHECK(flipped.find(" value: expected ", failure) != std::string::npos);
  CHECK(flipped.find("type=\"mismatch\"", failure) != std::string::npos);
  CHECK(flipped.find("reproduce: mxcosim run --rows 4 --cols 4 --m 4 --k 4 --n 8 --inject-fault 5") !=
        std::string::npos);
  CHECK(log.find("reproduce: mxcosim run --rows 4 --cols 4 --m 4 --k 4 --n 8 --inject-fault 5") !=
        std::string::npos);

  // --rerun-failed runs the one failure again and nothing else.
  const int rerun = run({MXCOSIM_BIN, "regress", dir / "fault.yaml", "--out", out, "--rerun-failed", "--no-progress"},
                        dir / "log3.txt");
  CHECK(rerun == 1);
  CHECK(read_text(dir / "log3.txt").find("ran 1 (2 done earlier)") != std::string::npos);
}

TEST_CASE("bad command lines are usage errors naming the problem") {
  TempDir dir;
  write_text(dir / "bad.yaml", "suite: x\ngroups:\n  - name: g\n    seeds: 3\n");
  CHECK(run({MXCOSIM_BIN, "regress", dir / "bad.yaml", "--out", dir / "o"}, dir / "l1") == 2);
  CHECK(read_text(dir / "l1").find("bad.yaml:4: field 'groups[0].seeds': expected a non-empty list of values") !=
        std::string::npos);
  CHECK(run({MXCOSIM_BIN, "regress", MXCOSIM_SOURCE_DIR "/regress/smoke.yaml", "--out", dir / "o", "--shard", "5/4"},
            dir / "l2") == 2);
  CHECK(read_text(dir / "l2").find("--shard '5/4'") != std::string::npos);
  // Runs are told apart by their revision: an empty one is refused.
  CHECK(run({MXCOSIM_BIN, "regress", MXCOSIM_SOURCE_DIR "/regress/smoke.yaml", "--out", dir / "o", "--rev", ""},
            dir / "l4") == 2);
  CHECK(read_text(dir / "l4").find("--rev: must not be empty") != std::string::npos);
  // --list prints each command as a shell reads it.
  write_text(dir / "q.yaml", "suite: q\ngroups:\n  - {name: a, args: {program: \"my prog.s\"}}\n");
  CHECK(run({MXCOSIM_BIN, "regress", dir / "q.yaml", "--list"}, dir / "l5") == 0);
  CHECK(read_text(dir / "l5").find("mxcosim run --program 'my prog.s'") != std::string::npos);
  CHECK(run({MXCOSIM_BIN, "report", "--db", dir / "none.db", "--html", dir / "r.html"}, dir / "l3") == 2);
  CHECK(read_text(dir / "l3").find("does not exist") != std::string::npos);
}

TEST_CASE("regress checks --exe, --tag, --shard and --baseline before running anything") {
  TempDir dir;
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, seeds: [1, 2]}\n");
  // Each test used to be recorded as an error ("cannot start") and the exit was 1.
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o1", "--exe", "/nonexistent"}, dir / "l1") == 2);
  CHECK(read_text(dir / "l1").find("--exe '/nonexistent': no such file") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "o1"));
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o1", "--exe", dir.path().string()}, dir / "l2") ==
        2);
  CHECK(read_text(dir / "l2").find("': not a regular file") != std::string::npos);
  write_text(dir / "plain.txt", "");
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o1", "--exe", dir / "plain.txt"}, dir / "l3") == 2);
  CHECK(read_text(dir / "l3").find("plain.txt': not executable") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "o1"));
  // A filter that selects nothing is an error, not "0 of 0 tests" and exit 0.
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o2", "--tag", "nightly"}, dir / "l4") == 2);
  CHECK(read_text(dir / "l4").find("--tag 'nightly': no test of suite 's' carries it") != std::string::npos);
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--list", "--shard", "3/3"}, dir / "l5") == 2);
  CHECK(read_text(dir / "l5").find("--shard 3/3: no test falls in it") != std::string::npos);
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o3", "--baseline", "typo"}, dir / "l6") == 2);
  CHECK(read_text(dir / "l6").find("--baseline 'typo': ") != std::string::npos);
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o4", "--rerun-failed"}, dir / "l7") == 2);
  CHECK(read_text(dir / "l7").find("--rerun-failed: ") != std::string::npos);
  // None of these mistakes leaves a folder, a lock or an empty database behind.
  for (const char* out : {"o2", "o3", "o4"}) CHECK_FALSE(std::filesystem::exists(dir / out));
}

TEST_CASE("regress --baseline does not count the run it continues: refused before running, not after") {
  TempDir dir;
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, command: model, args: {m: 8, k: 8, n: 8}}\n");
  REQUIRE(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--no-progress", "--rev", "r1"},
              dir / "l0") == 0);
  {
    // An unfinished run at r2, which the next command at r2 with its label continues.
    HistoryDb db(dir / "o/results.db");
    RunInfo k{.suite = "s", .rev = "r2", .label = "night", .started_at = "2099-01-01T00:00:00Z"};
    db.set_run_state(db.create_run(k), "interrupted", "");
  }
  std::filesystem::remove(dir / "o/junit.xml");
  // It used to run the suite, then fail writing the reports (exit 2, none written).
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--no-progress", "--rev", "r2", "--label",
             "night", "--baseline", "r2"},
            dir / "l1") == 2);
  CHECK(read_text(dir / "l1").find("--baseline 'r2': " + (dir / "o/results.db") +
                                   " has no other run of suite 's' at that revision") != std::string::npos);
  CHECK(HistoryDb(dir / "o/results.db", HistoryDb::Access::read).results(2).empty());
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--no-progress", "--rev", "r2", "--label",
             "night", "--baseline", "r1"},
            dir / "l2") == 0);
  CHECK(std::filesystem::exists(dir / "o/junit.xml"));
}

TEST_CASE("regress records the revision of the checkout its suite is in, from any working directory") {
  if (std::system("git --version > /dev/null 2>&1") != 0) {
    WARN("git is not installed: revisions are not read here");
    return;
  }
  TempDir dir;
  const std::string suite = "suite: s\ngroups:\n  - {name: a, command: model, args: {m: 8, k: 8, n: 8}}\n";
  std::filesystem::create_directories(dir / "repo");
  write_text(dir / "repo/s.yaml", suite);
  write_text(dir / "s2.yaml", suite);  // in no checkout
  const std::string git = "git -C " + shell_join({dir / "repo"}) + " -c user.name=t -c user.email=t@example.com ";
  REQUIRE(std::system((git + "init -q && " + git + "add s.yaml && " + git + "commit -q -m s && " + git +
                       "rev-parse HEAD > " + shell_join({dir / "head"}))
                          .c_str()) == 0);
  std::string head = read_text(dir / "head");
  head.erase(head.find_last_not_of("\n") + 1);
  REQUIRE(head.size() == 40);
  // Run from this test's own folder, whichever checkout that is in: the suite's checkout counts.
  CHECK(run({MXCOSIM_BIN, "regress", dir / "repo/s.yaml", "--out", dir / "o1", "--no-report", "--no-progress"},
            dir / "l1") == 0);
  // A suite in no checkout: the working directory's.
  CHECK(run({"sh", "-c",
             "cd " + shell_join({dir / "repo"}) + " && " +
                 shell_join({MXCOSIM_BIN, "regress", dir / "s2.yaml", "--out", dir / "o2", "--no-report",
                             "--no-progress"})},
            dir / "l2") == 0);
  for (const char* out : {"o1", "o2"}) {
    const auto runs = HistoryDb(dir / (std::string(out) + "/results.db"), HistoryDb::Access::read).runs();
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].rev == head);
  }
}

TEST_CASE("regress knows its --out however it is spelled: a later run moves the earlier run's logs aside") {
  TempDir dir;
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, command: model, args: {m: 8, k: 8, n: 8}}\n");
  std::filesystem::create_directories(dir / "sub");
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--no-report", "--rev", "r1"}, dir / "l1") ==
        0);
  // The same folder through "sub/..": the first run's logs move to runs/1 and its row follows.
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "sub/../o", "--no-report", "--rev", "r2"},
            dir / "l2") == 0);
  HistoryDb db(dir / "o/results.db", HistoryDb::Access::read);
  const auto runs = db.runs();
  REQUIRE(runs.size() == 2);
  const std::string first = db.results(runs[0].run_id).at(0).log_dir;
  CHECK(first.find("/runs/" + std::to_string(runs[0].run_id) + "/") != std::string::npos);
  CHECK(std::filesystem::exists(first));
  CHECK(db.results(runs[1].run_id).at(0).log_dir == (std::filesystem::canonical(dir.path()) / "o/tests/a").string());
}

TEST_CASE("report refuses a database merged into itself, a missing baseline and another program's database") {
  TempDir dir;
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, args: {rows: 4, cols: 4, m: 4, k: 4, n: 4}}\n");
  REQUIRE(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--no-progress", "--rev", "r1"},
              dir / "l0") == 0);
  const std::string db = dir / "o/results.db";
  // Merged into itself, planned and attempts used to double.
  CHECK(run({MXCOSIM_BIN, "report", "--db", db, db, "--json", dir / "x.json"}, dir / "l1") == 2);
  CHECK(read_text(dir / "l1").find("shard database '" + db + "' is the --db database itself") != std::string::npos);
  HistoryDb check(db, HistoryDb::Access::read);
  CHECK(check.runs().at(0).planned == 1);
  CHECK(check.results(check.runs().at(0).run_id).at(0).attempts == 1);
  // A baseline that is not there fails --fail-on-regression instead of passing it.
  CHECK(run({MXCOSIM_BIN, "report", "--db", db, "--json", dir / "y.json", "--baseline", "typo", "--fail-on-regression"},
            dir / "l2") == 2);
  CHECK(read_text(dir / "l2").find("--baseline 'typo': results database '" + db + "' has no other run of suite 's'") !=
        std::string::npos);
  // An output naming the database (or a shard) would overwrite the history: refused, the database intact.
  const auto size = std::filesystem::file_size(db);
  CHECK(run({MXCOSIM_BIN, "report", "--db", db, "--html", db}, dir / "l5") == 2);
  CHECK(read_text(dir / "l5").find("--html names '" + db + "', the file --db reads") != std::string::npos);
  CHECK(run({MXCOSIM_BIN, "report", "--db", dir / "new.db", db, "--csv", db}, dir / "l6") == 2);
  CHECK(read_text(dir / "l6").find("the file SHARD_DB reads") != std::string::npos);
  CHECK(std::filesystem::file_size(db) == size);
  CHECK(HistoryDb(db, HistoryDb::Access::read).runs().size() == 1);
  CHECK(run({MXCOSIM_BIN, "report", "--db", db, "--json", dir / "y.json", "--run", "999"}, dir / "l3") == 2);
  CHECK(read_text(dir / "l3").find("has no run with id 999") != std::string::npos);
  // A file that is not a results database is refused and left as it was.
  write_text(dir / "empty.db", "");
  CHECK(run({MXCOSIM_BIN, "report", "--db", dir / "empty.db", "--json", dir / "z.json"}, dir / "l4") == 2);
  CHECK(read_text(dir / "l4").find("not an mxcosim results database") != std::string::npos);
  CHECK(std::filesystem::file_size(dir / "empty.db") == 0);
}

TEST_CASE("regress checks every file it writes and the report's assets before running any test") {
  TempDir dir;
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, args: {rows: 4, cols: 4, m: 4, k: 4, n: 4}}\n");
  // No test ran: neither its logs' folder nor the database was created.
  auto nothing_ran = [&](const std::string& out) {
    CHECK_FALSE(std::filesystem::exists(out + "/tests"));
    CHECK_FALSE(std::filesystem::exists(out + "/results.db"));
  };
  for (const char* name : {"junit.xml", "report.html", "results.csv", "results.json"}) {
    INFO(name);
    const std::string out = dir / ("o-" + std::string(name));
    std::filesystem::create_directories(out + "/" + name);
    CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", out, "--no-progress"}, dir / "l1") == 2);
    CHECK(read_text(dir / "l1").find("--out " + out + "/" + name + ": is a directory") != std::string::npos);
    nothing_ran(out);
  }
  // The report's own files are not written with --no-report, so not checked.
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o-junit.xml", "--no-progress", "--no-report"},
            dir / "l2") == 0);

  CHECK(run({"env", "MXCOSIM_REPORT_ASSETS=" + dir / "no-assets", MXCOSIM_BIN, "regress", dir / "s.yaml", "--out",
             dir / "o2", "--no-progress"},
            dir / "l3") == 2);
  CHECK(read_text(dir / "l3").find("report asset '" + dir / "no-assets/") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "o2"));

  // --out naming a file, or a folder under one.
  write_text(dir / "file", "");
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "file"}, dir / "l4") == 2);
  CHECK(read_text(dir / "l4").find("--out '" + dir / "file" + "': not a folder") != std::string::npos);
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "file/sub"}, dir / "l5") == 2);
  CHECK(read_text(dir / "l5").find("--out '" + dir / "file/sub" + "': cannot create the folder") != std::string::npos);
  std::filesystem::create_directories(dir / "o3");
  write_text(dir / "o3/tests", "");
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o3"}, dir / "l6") == 2);
  CHECK(read_text(dir / "l6").find("o3/tests' is not a folder") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "o3/results.db"));
  // The earlier runs' log folder as a file: every test of a repeat would be an error.
  std::filesystem::create_directories(dir / "o4");
  write_text(dir / "o4/runs", "");
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o4"}, dir / "l7") == 2);
  CHECK(read_text(dir / "l7").find("o4/runs' is not a folder (earlier runs' logs go there)") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "o4/results.db"));
}

TEST_CASE("a second regress on the same --out is refused while the first holds it") {
  TempDir dir;
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, args: {rows: 4, cols: 4, m: 4, k: 4, n: 4}}\n");
  std::filesystem::create_directories(dir / "o");
  // This process holds the folder's lock, as a running regress does.
  const int fd = ::open((dir / "o/.lock").c_str(), O_RDWR | O_CREAT, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  REQUIRE(::pwrite(fd, "4242", 4, 0) == 4);
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--no-progress"}, dir / "l1") == 2);
  CHECK(read_text(dir / "l1").find("--out '" + (dir / "o") + "' is in use by another mxcosim regress (process 4242)") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "o/results.db"));  // nothing ran, nothing recorded
  ::close(fd);
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--no-progress"}, dir / "l2") == 0);
}

TEST_CASE("report checks the report's assets before merging") {
  TempDir dir;
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, args: {rows: 4, cols: 4, m: 4, k: 4, n: 4}}\n");
  REQUIRE(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--no-progress", "--no-report"},
              dir / "l0") == 0);
  CHECK(run({"env", "MXCOSIM_REPORT_ASSETS=" + dir / "no-assets", MXCOSIM_BIN, "report", "--db", dir / "all.db",
             dir / "o/results.db", "--html", dir / "r.html"},
            dir / "l1") == 2);
  CHECK(read_text(dir / "l1").find("report asset '" + dir / "no-assets/") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "all.db"));
}

TEST_CASE("a test's usage error is recorded by its cause, not by the pointer to --help after it") {
  TempDir dir;
  write_text(dir / "u.yaml", "suite: u\ngroups:\n  - {name: g, args: {frobnicate: 3}}\n");
  CHECK(run({MXCOSIM_BIN, "regress", dir / "u.yaml", "--out", dir / "o", "--no-progress"}, dir / "l") == 1);
  HistoryDb db(dir / "o/results.db", HistoryDb::Access::read);
  const auto results = db.results(db.runs().at(0).run_id);
  REQUIRE(results.size() == 1);
  const std::string message = results[0].message;
  CHECK(message.rfind("usage error: mxcosim run: ", 0) == 0);
  CHECK(message.find("frobnicate") != std::string::npos);
  CHECK(message.find("does not exist") != std::string::npos);
  CHECK(read_text(dir / "o/junit.xml").find("<error message=\"" + message) != std::string::npos);
}

TEST_CASE("a NUL byte in a test's stderr ends the message nowhere: console, JUnit, CSV and JSON") {
  TempDir dir;
  write_text(dir / "nul.sh", "#!/bin/sh\nprintf 'before\\000after the nul\\n' >&2\nexit 5\n");
  std::filesystem::permissions(dir / "nul.sh", std::filesystem::perms::owner_all);
  write_text(dir / "n.yaml", "suite: n\ngroups:\n  - {name: g}\n");
  CHECK(run({MXCOSIM_BIN, "regress", dir / "n.yaml", "--out", dir / "o", "--exe", dir / "nul.sh"}, dir / "l") == 1);
  const std::string shown = "exit code 5: before?after the nul";
  CHECK(count_of(read_text(dir / "l"), shown) == 2);  // the progress line and the summary
  CHECK(read_text(dir / "o/junit.xml").find("<error message=\"" + shown + "\"") != std::string::npos);
  CHECK(read_text(dir / "o/results.csv").find("," + shown + ",") != std::string::npos);
  const auto json = nlohmann::json::parse(read_text(dir / "o/results.json"));
  CHECK(json["tests"][0]["message"] == std::string("exit code 5: before\0after the nul", 33));
}

TEST_CASE("a control character in a suite's value reaches no console line: summary and list") {
  TempDir dir;
  write_text(dir / "fail.sh", "#!/bin/sh\nexit 5\n");
  std::filesystem::permissions(dir / "fail.sh", std::filesystem::perms::owner_all);
  // YAML's "\e" is ESC: a value that would recolour the terminal and erase the line.
  write_text(dir / "e.yaml",
             "suite: e\ngroups:\n  - name: g\n    configs: [{name: \"c\\e[31mRED\", note: \"\\e[2K\\rOK\"}]\n");
  CHECK(run({MXCOSIM_BIN, "regress", dir / "e.yaml", "--out", dir / "o", "--exe", dir / "fail.sh"}, dir / "l") == 1);
  const std::string summary = read_text(dir / "l");
  CHECK(summary.find("reproduce: mxcosim ") != std::string::npos);
  CHECK(summary.find("--note '?[2K?OK'") != std::string::npos);
  CHECK(summary.find('\x1b') == std::string::npos);
  CHECK(summary.find('\r') == std::string::npos);
  CHECK(run({MXCOSIM_BIN, "regress", dir / "e.yaml", "--list"}, dir / "list") == 0);
  const std::string list = read_text(dir / "list");
  CHECK(list.find("g/c?[31mRED\n") != std::string::npos);
  CHECK(list.find("--note '?[2K?OK'") != std::string::npos);
  CHECK(list.find('\x1b') == std::string::npos);
}

TEST_CASE("a merge that fails into a new database leaves no file behind, and an existing one in place") {
  TempDir dir;
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, args: {rows: 4, cols: 4, m: 4, k: 4, n: 4}}\n");
  REQUIRE(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--no-progress", "--no-report"},
              dir / "l0") == 0);
  write_text(dir / "text.db", "not a database\n");
  auto none_of = [&](const std::string& db) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      INFO(db + suffix);
      CHECK_FALSE(std::filesystem::exists(db + suffix));
    }
  };
  CHECK(run({MXCOSIM_BIN, "report", "--db", dir / "all.db", dir / "text.db"}, dir / "l1") == 2);
  CHECK(read_text(dir / "l1").find("results database '" + dir / "text.db" + "'") != std::string::npos);
  none_of(dir / "all.db");
  // The good shard was merged before the bad one failed: that goes too.
  CHECK(run({MXCOSIM_BIN, "report", "--db", dir / "all2.db", dir / "o/results.db", dir / "text.db"}, dir / "l2") == 2);
  none_of(dir / "all2.db");
  // An existing database stays.
  REQUIRE(run({MXCOSIM_BIN, "report", "--db", dir / "all3.db", dir / "o/results.db"}, dir / "l3") == 0);
  CHECK(run({MXCOSIM_BIN, "report", "--db", dir / "all3.db", dir / "text.db"}, dir / "l4") == 2);
  HistoryDb db(dir / "all3.db", HistoryDb::Access::read);
  CHECK(db.results(db.runs().at(0).run_id).size() == 1);
}

TEST_CASE("a regress started with SIGHUP ignored (nohup) keeps running through a hangup") {
  TempDir dir;
  // As `mxcosim run`, it writes its results file.
  write_text(dir / "slow.sh", "#!/bin/sh\nsleep 1\nfor a; do [ \"$p\" = --json ] && echo '{}' > \"$a\"; p=$a; done\n");
  std::filesystem::permissions(dir / "slow.sh", std::filesystem::perms::owner_all);
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, seeds: [1, 2]}\n");
  // As nohup starts it; the hangup comes once the tests are running (the handlers are in place).
  const std::string script =
      "trap '' HUP; \"$0\" regress \"$1\" --out \"$2\" --exe \"$3\" --no-progress --no-report & p=$!; "
      "while [ ! -d \"$2/tests\" ]; do sleep 0.05; done; sleep 0.2; kill -HUP $p; wait $p";
  const int rc = run({"sh", "-c", script, MXCOSIM_BIN, dir / "s.yaml", dir / "o", dir / "slow.sh"}, dir / "l");
  INFO(read_text(dir / "l"));
  // It used to stop: exit 130, the run interrupted.
  CHECK(rc == 0);
  HistoryDb db(dir / "o/results.db", HistoryDb::Access::read);
  CHECK(db.runs().at(0).state == "complete");
  CHECK(db.results(db.runs().at(0).run_id).size() == 2);
}

TEST_CASE("a rerun of failures records under its run's revision and refuses a --rev naming another") {
  TempDir dir;
  write_text(dir / "bad.sh", "#!/bin/sh\necho 'it went wrong' >&2\nexit 1\n");
  std::filesystem::permissions(dir / "bad.sh", std::filesystem::perms::owner_all);
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a}\n");
  const std::vector<std::string> base{MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--exe",
                                      dir / "bad.sh", "--no-progress", "--no-report"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  REQUIRE(run(with({"--rev", "abcdef1234567890"}), dir / "l0") == 1);
  CHECK(run(with({"--rerun-failed", "--rev", "fedcba98"}), dir / "l1") == 2);
  CHECK(read_text(dir / "l1").find("--rerun-failed: the newest run of suite 's' (") != std::string::npos);
  CHECK(read_text(dir / "l1").find(") is at revision abcdef1234567890, not 'fedcba98'") != std::string::npos);
  // A start of its hash names it; the summary prints the run's revision, not the one given.
  CHECK(run(with({"--rerun-failed", "--rev", "abcd"}), dir / "l2") == 1);
  CHECK(read_text(dir / "l2").find("suite s @ abcdef123456 (") != std::string::npos);
  HistoryDb db(dir / "o/results.db", HistoryDb::Access::read);
  REQUIRE(db.runs().size() == 1);
  CHECK(db.results(db.runs()[0].run_id).at(0).attempts == 2);
}

TEST_CASE("a rerun of failures stopped before they ran again counts their earlier results, as its reports do") {
  TempDir dir;
  // Fails at once, or after SLEEP seconds.
  write_text(dir / "bad.sh", "#!/bin/sh\nsleep ${SLEEP:-0}\necho 'it went wrong' >&2\nexit 1\n");
  std::filesystem::permissions(dir / "bad.sh", std::filesystem::perms::owner_all);
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a}\n  - {name: b}\n");
  REQUIRE(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--exe", dir / "bad.sh", "--no-progress",
               "--no-report"},
              dir / "l0") == 1);
  // The rerun is stopped while its first test sleeps (SIGTERM: a script's background job ignores SIGINT).
  const std::string script =
      "SLEEP=20 \"$0\" regress \"$1\" --out \"$2\" --exe \"$3\" --no-progress --rerun-failed & p=$!; "
      "while [ ! -s \"$2/.lock\" ]; do sleep 0.05; done; sleep 0.5; kill -TERM $p; wait $p";
  run({"sh", "-c", script, MXCOSIM_BIN, dir / "s.yaml", dir / "o", dir / "bad.sh"}, dir / "l1");
  const std::string log = read_text(dir / "l1");
  INFO(log);
  // It said "0 of 2 tests: 0 pass, 0 fail" and then listed the 2 failures its JUnit file counts.
  CHECK(log.find("2 of 2 tests: 0 pass, 2 fail, 0 error, 0 skipped") != std::string::npos);
  CHECK(read_text(dir / "o/junit.xml").find("failures=\"2\"") != std::string::npos);
}

TEST_CASE("a rerun of failures refuses a --label naming another run than the newest, which it reruns") {
  TempDir dir;
  write_text(dir / "bad.sh", "#!/bin/sh\necho 'it went wrong' >&2\nexit 1\n");
  std::filesystem::permissions(dir / "bad.sh", std::filesystem::perms::owner_all);
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a}\n");
  const auto regress = [&](const std::string& label, bool rerun, const std::filesystem::path& log) {
    std::vector<std::string> a{MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--exe", dir / "bad.sh",
                               "--no-progress", "--no-report", "--rev", "abcdef12", "--label", label};
    if (rerun) a.push_back("--rerun-failed");
    return run(a, log);
  };
  REQUIRE(regress("L1", false, dir / "l1") == 1);
  REQUIRE(regress("L2", false, dir / "l2") == 1);
  // It reran L2 and recorded there, saying nothing of the L1 asked for.
  CHECK(regress("L1", true, dir / "l3") == 2);
  CHECK(read_text(dir / "l3").find("--rerun-failed: the newest run of suite 's' is labelled L2, not 'L1'") !=
        std::string::npos);
  CHECK(regress("L2", true, dir / "l4") == 1);
  HistoryDb db(dir / "o/results.db", HistoryDb::Access::read);
  for (const RunInfo& r : db.runs()) CHECK(db.results(r.run_id).at(0).attempts == (r.label == "L2" ? 2 : 1));
}

TEST_CASE("an unknown command's error is its last line, as a test of it records") {
  TempDir dir;
  CHECK(run({MXCOSIM_BIN, "nosuchcommand"}, dir / "l") == 2);
  std::string text = read_text(dir / "l");
  while (!text.empty() && text.back() == '\n') text.pop_back();
  CHECK(text.substr(text.rfind('\n') + 1) == "mxcosim: unknown command 'nosuchcommand'");
  CHECK(text.find("commands:") != std::string::npos);  // the list is still there, above it
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: badcmd, command: nosuchcommand}\n");
  CHECK(run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--no-progress", "--no-report"},
            dir / "l2") == 1);
  HistoryDb db(dir / "o/results.db", HistoryDb::Access::read);
  CHECK(db.results(db.runs().at(0).run_id).at(0).message == "usage error: mxcosim: unknown command 'nosuchcommand'");
}

TEST_CASE("with --no-repeat a complete run is left as it is, and an unfinished one is continued") {
  // A resubmitted batch task: its shard's run is complete, and the same command would start LABEL.2 and run
  // every test again (a merge then counted the shard twice). A passing stub counts its runs in a file.
  TempDir dir;
  write_text(dir / "ok.sh", "#!/bin/sh\necho x >> " + (dir / "count") +
                                "\nfor a; do [ \"$p\" = --json ] && echo '{}' > \"$a\"; p=$a; done\nexit 0\n");
  std::filesystem::permissions(dir / "ok.sh", std::filesystem::perms::owner_all);
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, seeds: [1, 2, 3]}\n");
  const std::vector<std::string> cmd{MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--exe",
                                     dir / "ok.sh", "--label", "L", "--rev", "r1", "--no-progress", "--no-report",
                                     "--no-repeat"};
  const auto lines = [&] {
    const std::string t = read_text(dir / "count");
    return std::count(t.begin(), t.end(), '\n');
  };
  REQUIRE(run(cmd, dir / "l1") == 0);  // no run yet: it runs
  CHECK(lines() == 3);
  REQUIRE(run(cmd, dir / "l2") == 0);
  CHECK(read_text(dir / "l2").find("run L of suite s @ r1 is complete: nothing to do (--no-repeat)") !=
        std::string::npos);
  CHECK(lines() == 3);
  {
    HistoryDb db(dir / "o/results.db", HistoryDb::Access::read);
    REQUIRE(db.runs().size() == 1);
    CHECK(db.runs()[0].label == "L");
  }
  // Without it the same command repeats the run as L.2.
  REQUIRE(run(std::vector<std::string>(cmd.begin(), cmd.end() - 1), dir / "l3") == 0);
  CHECK(lines() == 6);
  HistoryDb db(dir / "o/results.db", HistoryDb::Access::read);
  REQUIRE(db.runs().size() == 2);
  CHECK(db.runs()[1].label == "L.2");
  // It cannot go with --rerun-failed, which always records into the newest run.
  std::vector<std::string> rerun = cmd;
  rerun.push_back("--rerun-failed");
  CHECK(run(rerun, dir / "l4") == 2);
}

TEST_CASE("report --fail-on-regression exits 1 when a test regressed against the baseline, 0 when none did") {
  TempDir dir;
  // Passes, or fails with a mismatch while the file `broken` is beside it; the same cycles either way.
  write_text(dir / "fake.sh", R"(#!/bin/sh
json=''
while [ $# -gt 0 ]; do [ "$1" = --json ] && json=$2; shift; done
if [ -e "$(dirname "$0")/broken" ]; then
  echo '{"status":"fail","error":"","cycles":{"rtl":500},"mismatches":[{"where":"sb","id":"C[1][2]",
         "field":"value","expected":"1","actual":"0","time_ps":9}]}' > "$json"
  exit 1
fi
echo '{"status":"pass","cycles":{"rtl":500,"model":500}}' > "$json"
)");
  std::filesystem::permissions(dir / "fake.sh", std::filesystem::perms::owner_all);
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a}\n  - {name: b}\n");
  auto regress = [&](const std::string& rev) {
    return run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--exe", dir / "fake.sh", "--no-progress",
                "--no-report", "--rev", rev},
               dir / ("regress-" + rev));
  };
  const std::string db = dir / "o/results.db";
  auto report = [&](const std::string& baseline, bool fail_on_regression) {
    std::vector<std::string> args{MXCOSIM_BIN, "report", "--db", db, "--json", dir / "r.json"};
    args.insert(args.end(), {"--baseline", baseline});
    if (fail_on_regression) args.push_back("--fail-on-regression");
    return run(args, dir / "report.txt");
  };
  REQUIRE(regress("r1") == 0);
  write_text(dir / "broken", "");
  REQUIRE(regress("r2") == 1);
  // r2 against r1: both tests passed and now fail.
  CHECK(report("r1", true) == 1);
  CHECK(read_text(dir / "report.txt").find("2 regression(s) against r1 (") != std::string::npos);
  CHECK(read_text(dir / "report.txt").find("), 2 test(s) compared") != std::string::npos);
  CHECK(report("r1", false) == 0);
  // The check alone, with no report file: its exit status is the answer.
  const std::vector<std::string> check_only{MXCOSIM_BIN, "report", "--db", db, "--baseline", "r1",
                                            "--fail-on-regression"};
  CHECK(run(check_only, dir / "check.txt") == 1);
  CHECK(read_text(dir / "check.txt").find("2 regression(s) against r1") != std::string::npos);
  // A merge with no report file asked for still decides the exit status (it exited 0 once merged).
  CHECK(run({MXCOSIM_BIN, "report", "--db", dir / "merged.db", db, "--baseline", "r1", "--fail-on-regression"},
            dir / "merge.txt") == 1);
  CHECK(read_text(dir / "merge.txt").find("2 regression(s) against r1") != std::string::npos);
  std::filesystem::remove(dir / "broken");
  REQUIRE(regress("r3") == 0);
  // r3 against r1, and against the failing r2: nothing that passed fails.
  CHECK(report("r1", true) == 0);
  CHECK(read_text(dir / "report.txt").find("0 regression(s) against r1") != std::string::npos);
  CHECK(report("r2", true) == 0);
  CHECK(run(check_only, dir / "check.txt") == 0);
  // The summary printed to a standard output that cannot take it is an error, not a silent exit 0.
  const std::string full = shell_join({MXCOSIM_BIN, "report", "--db", db, "--json", dir / "r.json"}) +
                           " > /dev/full 2> " + shell_join({dir / "full.txt"});
  const int status = std::system(full.c_str());
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 2));
  CHECK(read_text(dir / "full.txt").find("mxcosim report: error: writing standard output failed") !=
        std::string::npos);
}

TEST_CASE("regress exits 1 when tests of the run's plan are left without a result as its JUnit file says") {
  // An interrupted run of both tests, resumed with --tag quick: a passes, b stays not run.
  TempDir dir;
  write_text(dir / "ok.sh", "#!/bin/sh\nfor a; do [ \"$p\" = --json ] && echo '{}' > \"$a\"; p=$a; done\nexit 0\n");
  std::filesystem::permissions(dir / "ok.sh", std::filesystem::perms::owner_all);
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, tags: [quick]}\n  - {name: b}\n");
  std::filesystem::create_directories(dir / "o");
  {
    HistoryDb db(dir / "o/results.db");
    const auto run = db.create_run(RunInfo{.suite = "s", .rev = "r1", .label = "L"});
    db.add_to_plan(run, {"a", "b"}, "");
    db.set_run_state(run, "interrupted", utc_now());
  }
  const int rc = run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--exe", dir / "ok.sh", "--tag",
                      "quick", "--label", "L", "--rev", "r1", "--no-progress"},
                     dir / "l");
  INFO(read_text(dir / "l"));
  CHECK(rc == 1);
  CHECK(read_text(dir / "l").find("1 of its 2 planned tests have a result") != std::string::npos);
  const std::string junit = read_text(dir / "o/junit.xml");
  CHECK(attr(junit, "errors") == "1");
  CHECK(count_of(junit, "type=\"not-run\"") == 1);
}

TEST_CASE("a regress started with SIGCHLD ignored still sees how each test ended") {
  TempDir dir;
  write_text(dir / "ok.sh", "#!/bin/sh\nfor a; do [ \"$p\" = --json ] && echo '{}' > \"$a\"; p=$a; done\nexit 0\n");
  std::filesystem::permissions(dir / "ok.sh", std::filesystem::perms::owner_all);
  write_text(dir / "s.yaml", "suite: s\ntimeout: 5\ngroups:\n  - {name: a, seeds: [1, 2]}\n");
  const std::vector<std::string> args{MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--exe",
                                      dir / "ok.sh", "--no-progress", "--no-report"};
  // Started as a parent that ignores SIGCHLD leaves it: exec keeps the disposition.
  const pid_t pid = start_logged(args, dir / "l", [] { std::signal(SIGCHLD, SIG_IGN); });
  REQUIRE(pid >= 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  INFO(read_text(dir / "l"));
  // Every test was a timeout once: waitpid never found them ended.
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  HistoryDb db(dir / "o/results.db", HistoryDb::Access::read);
  const auto results = db.results(db.runs().at(0).run_id);
  REQUIRE(results.size() == 2);
  for (const auto& r : results) CHECK(r.status == "pass");
}

TEST_CASE("regress without --exe runs its own image for every test although a rebuild replaced the file") {
  TempDir dir;
  const std::string self = dir / "mxcosim", fifo = dir / "ring.fifo";
  std::filesystem::copy_file(MXCOSIM_BIN, self);
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const std::string ring = MXCOSIM_SOURCE_DIR "/configs/ici/ring4.yaml";
  // Test a reads its config from the FIFO: it waits there while the program is replaced.
  write_text(dir / "s.yaml", "suite: s\ncommand: ici\ngroups:\n  - {name: a, args: {config: " + fifo +
                                 ", collective: allreduce, bytes: 64KiB}}\n  - {name: b, args: {config: " + ring +
                                 ", collective: allreduce, bytes: 64KiB}}\n");
  const std::vector<std::string> args{self, "regress", dir / "s.yaml", "--out", dir / "o", "--rev", "r1",
                                      "--no-progress", "--no-report"};
  const std::string log_path = dir / "l";
  const pid_t pid = start_logged(args, log_path);
  REQUIRE(pid >= 0);
  // The FIFO opens for writing once test a has it open for reading (ENXIO until then).
  int status = 0, fd = -1;
  while ((fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK)) < 0) {
    REQUIRE(errno == ENXIO);
    REQUIRE(waitpid(pid, &status, WNOHANG) == 0);
    usleep(10000);
  }
  // A rebuild: another file at the program's path.
  std::filesystem::remove(self);
  write_text(self, "#!/bin/sh\necho replaced >> " + (dir / "marks") + "\nexit 3\n");
  std::filesystem::permissions(self, std::filesystem::perms::owner_all);
  fcntl(fd, F_SETFL, 0);
  const std::string config = read_text(ring);
  CHECK(write(fd, config.data(), config.size()) == static_cast<ssize_t>(config.size()));
  close(fd);
  REQUIRE(waitpid(pid, &status, 0) == pid);
  INFO(read_text(log_path));
  // Test b used to run the replacement: "error exit code 3".
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  CHECK_FALSE(std::filesystem::exists(dir / "marks"));
  HistoryDb db(dir / "o/results.db", HistoryDb::Access::read);
  const auto results = db.results(db.runs().at(0).run_id);
  REQUIRE(results.size() == 2);
  for (const auto& r : results) CHECK(r.status == "pass");
  // command.txt names the program by its path.
  CHECK(read_text(dir / "o/tests/b/command.txt").rfind(self + " ici ", 0) == 0);
}

TEST_CASE("a report that cannot be written is named and removed: the others are written and a failure stays 1") {
  TempDir dir;
  // Passes, or fails while the file `broken` is beside it.
  write_text(dir / "t.sh", "#!/bin/sh\nfor a; do [ \"$p\" = --json ] && echo '{}' > \"$a\"; p=$a; done\n"
                           "[ -e \"$(dirname \"$0\")/broken\" ] && exit 1\nexit 0\n");
  std::filesystem::permissions(dir / "t.sh", std::filesystem::perms::owner_all);
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a}\n");
  const std::string out = dir / "o";
  auto regress = [&](const std::string& label) {
    return run({MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", out, "--exe", dir / "t.sh", "--no-progress", "--rev",
                "r1", "--label", label},
               dir / ("l-" + label));
  };
  REQUIRE(regress("first") == 0);
  // The first report written goes to a full disk: the later ones are still written, and it is not left stale.
  std::filesystem::remove(out + "/junit.xml");
  std::filesystem::create_symlink("/dev/full", out + "/junit.xml");
  write_text(dir / "broken", "");
  CHECK(regress("second") == 1);
  const std::string log = read_text(dir / "l-second");
  INFO(log);
  CHECK(log.find("error: report " + out + "/junit.xml not written: ") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(out + "/junit.xml")));
  CHECK(nlohmann::json::parse(read_text(out + "/results.json"))["run"]["label"] == "second");
  CHECK(read_text(out + "/results.csv").find(",second,a,fail,") != std::string::npos);
  CHECK(read_text(out + "/report.html").find("second") != std::string::npos);
  // An earlier run's report that cannot be rewritten does not stay beside the new ones; a pass turns into 2.
  std::filesystem::remove(dir / "broken");
  std::filesystem::remove(out + "/results.csv");
  std::filesystem::create_symlink("/dev/full", out + "/results.csv");
  CHECK(regress("third") == 2);
  CHECK(read_text(dir / "l-third").find("report " + out + "/results.csv not written") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(out + "/results.csv")));
  CHECK(attr(read_text(out + "/junit.xml"), "failures") == "0");
  CHECK(nlohmann::json::parse(read_text(out + "/results.json"))["run"]["label"] == "third");
}

TEST_CASE("regress starts its progress with the tests to run and -j and the folder and --no-progress silences it") {
  TempDir dir;
  write_text(dir / "ok.sh", "#!/bin/sh\nfor a; do [ \"$p\" = --json ] && echo '{}' > \"$a\"; p=$a; done\nexit 0\n");
  std::filesystem::permissions(dir / "ok.sh", std::filesystem::perms::owner_all);
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, seeds: [1, 2]}\n");
  const std::vector<std::string> args{MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--exe",
                                      dir / "ok.sh", "-j", "2", "--no-report", "--rev", "r1"};
  CHECK(run(args, dir / "l") == 0);
  const std::string log = read_text(dir / "l");
  INFO(log);
  CHECK(log.rfind("regress: 2 tests to run, -j 2, out " + dir / "o" + "\n", 0) == 0);
  CHECK(count_of(log, "pass    a/seed=") == 2);
  std::vector<std::string> quiet = args;
  quiet.push_back("--no-progress");
  CHECK(run(quiet, dir / "q") == 0);
  const std::string q = read_text(dir / "q");
  CHECK(q.find("regress: ") == std::string::npos);
  CHECK(q.find("pass    ") == std::string::npos);
  CHECK(q.find("suite s @ r1") != std::string::npos);  // the summary is not progress
}

TEST_CASE("regress counts the CPUs it may use: under taskset -c with one CPU -j 1 gives run tests --threads 1") {
  if (std::system("taskset -c 0 true > /dev/null 2>&1") != 0) {
    WARN("not checked: taskset cannot run here");
    return;
  }
  TempDir dir;
  write_text(dir / "ok.sh", "#!/bin/sh\nfor a; do [ \"$p\" = --json ] && echo '{}' > \"$a\"; p=$a; done\nexit 0\n");
  std::filesystem::permissions(dir / "ok.sh", std::filesystem::perms::owner_all);
  write_text(dir / "s.yaml", "suite: s\ngroups:\n  - {name: a, command: run}\n");
  CHECK(run({"taskset", "-c", "0", MXCOSIM_BIN, "regress", dir / "s.yaml", "--out", dir / "o", "--exe", dir / "ok.sh",
             "-j", "1", "--no-progress", "--no-report", "--rev", "r1"},
            dir / "l") == 0);
  CHECK(read_text(dir / "o/tests/a/command.txt").find(" run --threads 1 --json ") != std::string::npos);
}

TEST_CASE("regress --help says --rerun-failed reruns errors too") {
  TempDir dir;
  CHECK(run({MXCOSIM_BIN, "regress", "--help"}, dir / "h") == 0);
  std::string help = read_text(dir / "h");
  // cxxopts wraps the text: read it as one line.
  std::string flat;
  for (const char c : help)
    if (c != '\n' && !(c == ' ' && !flat.empty() && flat.back() == ' ')) flat += c;
  CHECK(flat.find("run again only the tests that failed or errored in the newest run") != std::string::npos);
}
