// The runner with a stand-in program: isolation of crashes and hangs, logs,
// resume without repeats, rerun of failures. The stand-in is a shell script
// whose first argument says how to end.
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <thread>

#include "regress/cpu_count.h"
#include "regress/db_merge.h"
#include "regress/junit_writer.h"
#include "regress/outcome.h"
#include "regress/report_data.h"
#include "regress/runner.h"
#include "regress/subprocess.h"
#include "tests/temp_dir.h"

using namespace mxc::regress;
using mxc::testing::count_of;
using mxc::testing::read_text;
using mxc::testing::TempDir;
using mxc::testing::write_text;

namespace {

// Appends its arguments to $dir/calls.log, then ends as its first argument says.
const char* kFake = R"(#!/bin/sh
dir=$(dirname "$0")
echo "$*" >> "$dir/calls.log"
mode=$1 a3=$3 a5=$5 a7=$7
json=""
while [ $# -gt 0 ]; do [ "$1" = "--json" ] && json=$2; shift; done
case $mode in
  pass|run) echo '{"status":"pass","cycles":{"rtl":500,"model":510}}' > "$json"; echo ok; exit 0 ;;
  fail) echo '{"status":"fail","error":"","cycles":{"rtl":7},"mismatches":[{"where":"sb","id":"C[1][2]","field":"value","expected":"1","actual":"0","time_ps":9}]}' > "$json"; exit 1 ;;
  crash) kill -SEGV $$ ;;
  hang) if [ -e "$dir/hang" ]; then sleep 30 & sleep 30; fi; exit 0 ;;
  small) echo "mxcosim run: error: no RTL of a 64x64 array in this build; available: 4x4" >&2; exit 2 ;;
  spew) while :; do echo "warning: the same line again, without end" >&2; done ;;
  burst) head -c 5000000 /dev/zero; exit 0 ;;
  held) # with the file `hold` present: names itself in held.pid and waits to be killed
    if [ -e "$dir/hold" ]; then echo $$ > "$dir/held.tmp"; mv "$dir/held.tmp" "$dir/held.pid"; sleep 30; fi
    echo '{"status":"pass"}' > "$json"; exit 0 ;;
  term) kill -TERM $$ ;;
  stopped) # as held, but SIGTERM ends it as it ends mxcosim run: its results written, exit 130
    if [ -e "$dir/hold" ]; then
      trap 'echo "{\"status\":\"fail\",\"error\":\"stopped by a signal at 9 ps\"}" > "$json"; exit 130' TERM
      echo $$ > "$dir/held.tmp"; mv "$dir/held.tmp" "$dir/held.pid"; sleep 30 & wait $!
    fi
    echo '{"status":"pass"}' > "$json"; exit 0 ;;
  exit130) echo "mxcosim run: interrupted" >&2; exit 130 ;;
  flaky) # fails, leaving a waveform beside its results, while the file `broken` is present
    if [ -e "$dir/broken" ]; then
      echo wave > "$(dirname "$json")/wave.fst"; echo broke >&2
      echo '{"status":"fail","error":"it broke"}' > "$json"; exit 1
    fi
    echo ok; echo '{"status":"pass"}' > "$json"; exit 0 ;;
  longline) head -c 300000 /dev/zero | tr '\0' x >&2; echo ' the end' >&2; exit 4 ;;
  timed) # timed --rtl N --before S --after S: waits, writes N as its cycles, waits again.
    echo "rtl $a3"; sleep $a5; echo "{\"status\":\"pass\",\"cycles\":{\"rtl\":$a3}}" > "$json"; sleep $a7; exit 0 ;;
esac
exit 3
)";

/// Options for a run of `exe` writing into `out_dir`, as revision r1, without progress lines.
RunnerOptions quiet_options(const std::string& exe, const std::string& out_dir) {
  RunnerOptions o;
  o.executable = exe;
  o.out_dir = out_dir;
  o.rev = "r1";
  o.progress = false;
  return o;
}

struct Fixture {
  TempDir dir;
  std::string exe = dir / "fake.sh";
  Fixture() {
    write_text(exe, kFake);
    std::filesystem::permissions(exe, std::filesystem::perms::owner_all);
  }
  Suite suite(const std::string& groups) { return parse_suite("suite: s\ntimeout: 20\ngroups:\n" + groups, "s.yaml"); }
  RunnerOptions options(unsigned jobs = 2) {
    RunnerOptions o = quiet_options(exe, dir / "out");
    o.jobs = jobs;
    o.label = "night";
    return o;
  }
  std::size_t calls(const std::string& mode) { return count_of(read_text(dir / "calls.log"), mode + " "); }
  /// Runs `s` and stops it as a Ctrl-C would once a `hang` test has started
  /// (with the file `hang` present it waits to be killed).
  RunSummary run_until_hang(const Suite& s, RunnerOptions o, HistoryDb& db) {
    std::atomic<bool> stop{false}, ended{false};
    o.stop = &stop;
    const std::size_t before = calls("hang");
    std::thread stopper([&] {
      while (!ended && calls("hang") == before) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      stop = true;
    });
    // Joined however run_suite ends: a throw must fail the test, not terminate the binary.
    struct Join {
      std::atomic<bool>& ended;
      std::thread& thread;
      ~Join() {
        ended = true;
        thread.join();
      }
    } join{ended, stopper};
    return run_suite(s, o, db);
  }
};

const char* kMixed = R"(  - {name: ok, command: pass, seeds: [1, 2, 3]}
  - {name: bad, command: fail}
  - {name: boom, command: crash}
  - {name: stuck, command: hang, timeout: 0.5}
  - {name: big, command: small}
)";

// A run of suite s (revision r1, label night) that an earlier command left
// stopped with `done` passed: `planned` tests by count (0 when a plan of ids
// is to be added), in `shard`.
std::int64_t stopped_run(HistoryDb& db, const std::vector<std::string>& done, std::int64_t planned = 0,
                         const std::string& shard = "") {
  RunInfo k{.suite = "s", .rev = "r1", .label = "night", .shard = shard, .planned = planned};
  const auto run = db.create_run(k);
  for (const auto& id : done) {
    TestRecord r;
    r.test_id = id;
    r.status = "pass";
    db.record(run, r);
  }
  db.set_run_state(run, "interrupted", utc_now());
  return run;
}

}  // namespace

TEST_CASE("each test's ending is its own: pass, mismatch, crash, timeout, size not built") {
  Fixture f;
  write_text(f.dir / "hang", "");
  HistoryDb db(f.dir / "r.db");
  const RunSummary s = run_suite(f.suite(kMixed), f.options(3), db);
  CHECK(s.selected == 7);
  CHECK(s.ran == 7);
  CHECK(s.counts.pass == 3);
  CHECK(s.counts.fail == 1);
  CHECK(s.counts.error == 2);
  CHECK(s.counts.skipped == 1);
  CHECK_FALSE(s.interrupted);
  CHECK(db.run(s.run_id)->state == "complete");
  const auto res = db.results(s.run_id);
  REQUIRE(res.size() == 7);
  CHECK(res[0].test_id == "ok/seed=1");
  CHECK(res[0].cycles_model == 510);
  CHECK(res[0].seed == "1");
  CHECK(res[3].message == "sb C[1][2] value: expected 1, got 0 at 9 ps");
  CHECK(res[3].command == "mxcosim fail");
  CHECK(res[4].message == "crash: SIGSEGV");
  CHECK(res[5].message == "timeout after 0.5 s");
  CHECK(res[6].status == "skipped");
  CHECK(res[6].message == "size not built: no RTL of a 64x64 array in this build; available: 4x4");
  // Logs and the results file live in the test's own folder.
  const auto ok_dir = std::filesystem::path(f.dir / "out") / "tests" / "ok__seed=1";
  CHECK(read_text((ok_dir / "stdout.log").string()) == "ok\n");
  CHECK(std::filesystem::exists(ok_dir / "results.json"));
  CHECK(read_text((ok_dir / "command.txt").string()).find("pass --seed 1 --json") != std::string::npos);
}

TEST_CASE("a test whose log passes the limit is killed as an error, and the others run on") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  RunnerOptions o = f.options(2);
  o.max_log_bytes = 1 << 20;
  const RunSummary s =
      run_suite(f.suite("  - {name: loud, command: spew, timeout: 60}\n  - {name: ok, command: pass}\n"), o, db);
  CHECK(s.counts.error == 1);
  CHECK(s.counts.pass == 1);
  const auto res = db.results(s.run_id);
  REQUIRE(res.size() == 2);
  CHECK(res[0].test_id == "loud");
  CHECK(res[0].message == "killed: its stderr.log passed 1 MiB (mxcosim regress --max-log-mb)");
  CHECK(res[0].wall_seconds < 30);  // killed for its log, not at its timeout
  // Killed soon after it passed the limit (its sizes are looked at on every poll).
  const auto log = std::filesystem::path(f.dir / "out") / "tests" / "loud" / "stderr.log";
  CHECK(std::filesystem::file_size(log) > (1u << 20));
  CHECK(std::filesystem::file_size(log) < (64u << 20));
}

TEST_CASE("a test that writes past the log limit and exits before it is killed is an error all the same") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  RunnerOptions o = f.options(1);
  o.max_log_bytes = 1 << 20;
  const RunSummary s = run_suite(f.suite("  - {name: burst, command: burst}\n"), o, db);
  CHECK(s.counts.error == 1);
  const auto res = db.results(s.run_id);
  REQUIRE(res.size() == 1);
  CHECK(res[0].status == "error");
  // Killed while writing or found past the limit once it ended: the same error.
  const std::string why = "its stdout.log passed 1 MiB (mxcosim regress --max-log-mb)";
  CHECK((res[0].message == why || res[0].message == "killed: " + why));
}

TEST_CASE("a log found past the limit after the process ended is log_too_large, with its exit code") {
  TempDir dir;
  const std::string out = dir / "stdout.log", err = dir / "stderr.log";
  Subprocess p({"/bin/sh", "-c", "head -c 3000000 /dev/zero; exit 3"}, out, err, 60, 1 << 20);
  // Waits for the end without reaping, so the first poll finds it ended.
  siginfo_t info{};
  REQUIRE(waitid(P_PID, static_cast<id_t>(p.pid()), &info, WEXITED | WNOWAIT) == 0);
  const auto o = p.poll();
  REQUIRE(o);
  CHECK(o->kind == ProcessOutcome::Kind::log_too_large);
  CHECK_FALSE(o->log_killed);
  CHECK(o->exit_code == 3);
  CHECK(o->log_file == "stdout.log");
  CHECK(std::filesystem::file_size(out) == 3000000);
  CHECK(decide(*o, {}, "", false, 60).message == "its stdout.log passed 1 MiB (mxcosim regress --max-log-mb)");

  // Within the limit it is the exit it was.
  Subprocess q({"/bin/sh", "-c", "head -c 1000 /dev/zero; exit 3"}, out, err, 60, 1 << 20);
  REQUIRE(waitid(P_PID, static_cast<id_t>(q.pid()), &info, WEXITED | WNOWAIT) == 0);
  const auto e = q.poll();
  REQUIRE(e);
  CHECK(e->kind == ProcessOutcome::Kind::exited);
  CHECK(e->exit_code == 3);
}

TEST_CASE("a file in the place of a test's log folder is an error before the run is recorded") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  std::filesystem::create_directories(f.dir / "out/tests");
  write_text(f.dir / "out/tests/b", "");
  CHECK_THROWS_WITH(run_suite(f.suite("  - {name: a, command: pass}\n  - {name: b, command: pass}\n"), f.options(), db),
                    "'" + f.dir / "out/tests/b" + "' (the log folder of test 'b') is not a folder");
  CHECK(db.runs().empty());
  CHECK(read_text(f.dir / "calls.log").empty());  // no test ran
}

TEST_CASE("a test's megabyte stderr line is kept short in its result and whole in its log") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const RunSummary sum = run_suite(f.suite("  - {name: a, command: longline}\n"), f.options(), db);
  const auto results = db.results(sum.run_id);
  REQUIRE(results.size() == 1);
  const std::string& message = results[0].message;
  CHECK(message.size() <= kMaxMessage);
  CHECK(message.rfind("exit code 4: xxx", 0) == 0);
  CHECK(message.substr(message.size() - 12) == "xxxx the end");
  CHECK(read_text(f.dir / "out/tests/a/stderr.log").size() == 300000 + 9);
}

TEST_CASE("a file in the place of the earlier runs' log folder is an error before the run is recorded") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  std::filesystem::create_directories(f.dir / "out");
  write_text(f.dir / "out/runs", "");
  CHECK_THROWS_WITH(run_suite(f.suite("  - {name: a, command: pass}\n"), f.options(), db),
                    "'" + f.dir / "out/runs" + "' (earlier runs' log folders go there) is not a folder");
  CHECK(db.runs().empty());
  CHECK(read_text(f.dir / "calls.log").empty());  // no test ran
}

TEST_CASE("a resumed run runs only the tests without a result") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite("  - {name: ok, command: pass, seeds: [1, 2, 3, 4, 5]}\n");
  // An earlier invocation finished seeds 2 and 4 and was then killed.
  const auto run = stopped_run(db, {"ok/seed=2", "ok/seed=4"});
  const RunSummary sum = run_suite(s, f.options(), db);
  CHECK(sum.resumed);
  CHECK(sum.run_id == run);
  CHECK(sum.already_done == 2);
  CHECK(sum.ran == 3);
  CHECK(sum.counts.pass == 5);
  const std::string log = read_text(f.dir / "calls.log");
  CHECK(count_of(log, "--seed 1 ") == 1);
  CHECK(count_of(log, "--seed 2 ") == 0);
  CHECK(count_of(log, "--seed 3 ") == 1);
  CHECK(count_of(log, "--seed 4 ") == 0);
  CHECK(count_of(log, "--seed 5 ") == 1);
  CHECK(db.run(run)->state == "complete");
  // Once complete, the same command starts the next run.
  const RunSummary next = run_suite(s, f.options(), db);
  CHECK_FALSE(next.resumed);
  CHECK(next.ran == 5);
}

TEST_CASE("a run resumed with a suite whose tests changed their arguments is refused before anything runs") {
  Fixture f;
  write_text(f.dir / "hang", "");
  HistoryDb db(f.dir / "r.db");
  const RunSummary first =
      f.run_until_hang(f.suite("  - {name: a, command: pass, args: {m: 4}}\n  - {name: b, command: hang}\n"),
                       f.options(1), db);
  REQUIRE(first.interrupted);
  REQUIRE(db.finished_tests(first.run_id) == std::set<std::string>{"a"});
  std::filesystem::remove(f.dir / "hang");
  const std::size_t calls = count_of(read_text(f.dir / "calls.log"), "\n");
  const Suite edited = f.suite("  - {name: a, command: pass, args: {m: 8}}\n  - {name: b, command: hang}\n");
  CHECK_THROWS_WITH(run_suite(edited, f.options(1), db),
                    "s.yaml: test 'a' is now 'mxcosim pass --m 8', but run night recorded its result as 'mxcosim pass "
                    "--m 4': the suite changed since, and continuing the run would mix the results of both in it; run "
                    "it under another --label, or restore the suite");
  RunnerOptions rerun = f.options(1);
  rerun.rerun_failed = true;
  CHECK_THROWS_WITH(run_suite(edited, rerun, db), Catch::Contains("run the suite without --rerun-failed"));
  CHECK(count_of(read_text(f.dir / "calls.log"), "\n") == calls);  // nothing ran
  CHECK(db.run(first.run_id)->state == "interrupted");
  // Under another label the edited suite is a run of its own.
  RunnerOptions other = f.options(1);
  other.label = "night-edited";
  CHECK(run_suite(edited, other, db).counts.pass == 2);
}

TEST_CASE("a stop request kills running tests and leaves the run resumable") {
  Fixture f;
  write_text(f.dir / "hang", "");
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite("  - {name: a, command: pass}\n  - {name: b, command: hang}\n  - {name: c, command: pass}\n");
  // Stopped once test b is running: a has its result, b is killed, c never starts.
  const RunSummary first = f.run_until_hang(s, f.options(1), db);
  CHECK(first.interrupted);
  CHECK(first.ran == 1);
  CHECK(db.run(first.run_id)->state == "interrupted");
  CHECK(db.finished_tests(first.run_id) == std::set<std::string>{"a"});

  std::filesystem::remove(f.dir / "hang");
  const RunSummary second = run_suite(s, f.options(1), db);
  CHECK(second.resumed);
  CHECK(second.run_id == first.run_id);
  CHECK(second.ran == 2);
  CHECK(f.calls("pass") == 2);  // a once, c once
  CHECK(db.run(first.run_id)->state == "complete");
}

TEST_CASE("rerunning failures runs only the failures of the newest run, into that run") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite("  - {name: ok, command: pass}\n  - {name: bad, command: fail}\n  - {name: big, command: small}\n");
  const RunSummary first = run_suite(s, f.options(), db);
  CHECK(first.counts.fail == 1);
  RunnerOptions o = f.options();
  o.rerun_failed = true;
  const RunSummary again = run_suite(s, o, db);
  CHECK(again.run_id == first.run_id);
  CHECK(again.ran == 1);
  CHECK(f.calls("fail") == 2);
  CHECK(f.calls("pass") == 1);
  const auto res = db.results(first.run_id);
  REQUIRE(res.size() == 3);
  CHECK(res[1].attempts == 2);
  CHECK(again.counts.done() == 3);
}

TEST_CASE("a failed attempt is kept when another suite with the same test ids took the folder in between") {
  // Suites s and u share the test t and one --out: s fails, u runs t (s's logs move to runs/<s>/t),
  // s's failure is rerun, u runs again (the rerun's logs move to runs/<s>/t). The first attempt of
  // s was deleted there, never kept as t@attempt-1.
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite("  - {name: t, command: flaky}\n");
  const Suite u = parse_suite("suite: u\ntimeout: 20\ngroups:\n  - {name: t, command: flaky}\n", "u.yaml");
  write_text(f.dir / "broken", "");
  const RunSummary first = run_suite(s, f.options(), db);
  REQUIRE(first.counts.fail == 1);
  std::filesystem::remove(f.dir / "broken");
  run_suite(u, f.options(), db);
  RunnerOptions o = f.options();
  o.rerun_failed = true;
  REQUIRE(run_suite(s, o, db).counts.pass == 1);
  run_suite(u, f.options(), db);
  const auto runs = std::filesystem::path(f.dir / "out/runs") / std::to_string(first.run_id);
  CHECK(read_text((runs / "t@attempt-1/stderr.log").string()) == "broke\n");
  CHECK(read_text((runs / "t@attempt-1/result.txt").string()).rfind("status: fail\nmessage: it broke\n", 0) == 0);
  CHECK(read_text((runs / "t/stdout.log").string()) == "ok\n");  // the passing attempt's, moved aside by u
  const auto res = db.results(first.run_id);
  REQUIRE(res.size() == 1);
  CHECK(res[0].log_dir == (runs / "t").string());
}

TEST_CASE("a rerun of many failures starts in time linear in their number") {
  // 40000 failed tests; the rerun is stopped before its first test, so its time is its start-up alone.
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  constexpr int kTests = 40000;
  std::string seeds;
  for (int i = 0; i < kTests; ++i) seeds += (i ? "," : "") + std::to_string(i);
  const Suite s = f.suite("  - {name: g, command: fail, seeds: [" + seeds + "]}\n");
  const auto run = db.create_run(RunInfo{.suite = "s", .rev = "r1", .label = "night"});
  std::vector<TestRecord> failed;
  for (const auto& t : s.tests) {
    TestRecord r;
    r.test_id = t.id;
    r.status = "fail";
    failed.push_back(r);
  }
  db.record_all(run, failed);
  db.set_run_state(run, "complete", utc_now());
  RunnerOptions o = f.options();
  o.rerun_failed = true;
  const std::atomic<bool> stop{true};
  o.stop = &stop;
  const auto start = std::chrono::steady_clock::now();
  const RunSummary sum = run_suite(s, o, db);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(sum.interrupted);
  CHECK(sum.ran == 0);
  // None ran again: each keeps its earlier result, as the reports count it.
  CHECK(sum.counts.fail == static_cast<std::size_t>(kTests));
  CHECK(sum.counts.done() == static_cast<std::size_t>(kTests));
  // A search of the queue for each result took 40000^2 / 2 string comparisons, twice: over 10 s here.
  CHECK(seconds < 3.0);
}

TEST_CASE("a rerun keeps the failed attempt's folder with its result and starts in an empty folder") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite("  - {name: t, command: flaky}\n");
  write_text(f.dir / "broken", "");
  const RunSummary first = run_suite(s, f.options(), db);
  REQUIRE(first.counts.fail == 1);
  std::filesystem::remove(f.dir / "broken");
  RunnerOptions o = f.options();
  o.rerun_failed = true;
  const RunSummary again = run_suite(s, o, db);
  CHECK(again.counts.pass == 1);
  const auto tests = std::filesystem::path(f.dir / "out/tests");
  const auto kept = std::filesystem::path(f.dir / "out/runs") / std::to_string(first.run_id) / "t@attempt-1";
  // The passing attempt's folder holds its own files only.
  CHECK_FALSE(std::filesystem::exists(tests / "t/wave.fst"));
  CHECK(read_text((tests / "t/stdout.log").string()) == "ok\n");
  CHECK(read_text((tests / "t/stderr.log").string()).empty());
  // The failed attempt's are kept whole, with its result.
  CHECK(read_text((kept / "wave.fst").string()) == "wave\n");
  CHECK(read_text((kept / "stderr.log").string()) == "broke\n");
  CHECK(read_text((kept / "results.json").string()).find("it broke") != std::string::npos);
  CHECK(read_text((kept / "result.txt").string()).rfind("status: fail\nmessage: it broke\n", 0) == 0);
  const auto res = db.results(first.run_id);
  REQUIRE(res.size() == 1);
  CHECK(res[0].status == "pass");
  CHECK(res[0].attempts == 2);
  CHECK(res[0].log_dir == (tests / "t").string());
  // A second rerun of a failure keeps both earlier attempts.
  write_text(f.dir / "broken", "");
  run_suite(s, f.options(), db);  // a new run (the first is complete): fails
  const auto second_run = db.runs().back().run_id;
  run_suite(s, o, db);
  run_suite(s, o, db);
  const auto runs = std::filesystem::path(f.dir / "out/runs") / std::to_string(second_run);
  CHECK(std::filesystem::exists(runs / "t@attempt-1/wave.fst"));
  CHECK(std::filesystem::exists(runs / "t@attempt-2/wave.fst"));
  CHECK_FALSE(std::filesystem::exists(runs / "t@attempt-3"));
  CHECK(read_text((runs / "t@attempt-2/result.txt").string()).find("attempt: 2\n") != std::string::npos);
}

TEST_CASE("a resumed run keeps what a killed attempt left in a test's folder apart from the new attempt") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const auto run = stopped_run(db, {"a"});
  std::filesystem::create_directories(f.dir / "out/tests/b");
  write_text(f.dir / "out/tests/b/wave.fst", "half\n");
  write_text(f.dir / "out/tests/b/results.json", "{\"status\":\"fail\"}");
  const RunSummary sum =
      run_suite(f.suite("  - {name: a, command: pass}\n  - {name: b, command: pass}\n"), f.options(), db);
  CHECK(sum.run_id == run);
  CHECK(sum.counts.pass == 2);
  CHECK_FALSE(std::filesystem::exists(f.dir / "out/tests/b/wave.fst"));
  const auto kept = std::filesystem::path(f.dir / "out/runs") / std::to_string(run) / "b@attempt-1";
  CHECK(read_text((kept / "wave.fst").string()) == "half\n");
  CHECK(read_text((kept / "result.txt").string()).rfind("no result recorded: ", 0) == 0);
}

TEST_CASE("a later run of a test moves the earlier run's logs aside, and its results follow them") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const std::filesystem::path out = f.dir / "out";
  const auto tests = out / "tests";
  // Night 1 fails (its own stdout is empty), night 2 passes (prints "ok").
  const RunSummary one = run_suite(f.suite("  - {name: t, command: fail}\n"), f.options(), db);
  CHECK(db.results(one.run_id).at(0).log_dir == (tests / "t").string());
  RunnerOptions o = f.options();
  o.label = "night2";
  const RunSummary two = run_suite(f.suite("  - {name: t, command: pass}\n"), o, db);
  REQUIRE(two.run_id != one.run_id);
  const auto moved = out / "runs" / std::to_string(one.run_id) / "t";
  CHECK(db.results(one.run_id).at(0).log_dir == moved.string());
  CHECK(read_text((moved / "stdout.log").string()).empty());
  CHECK(read_text((moved / "command.txt").string()).find("fail") != std::string::npos);
  CHECK(db.results(two.run_id).at(0).log_dir == (tests / "t").string());
  CHECK(read_text((tests / "t" / "stdout.log").string()) == "ok\n");
}

TEST_CASE("a shard runs its own tests only") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  RunnerOptions o = f.options();
  o.shard = parse_shard("2/3");
  const RunSummary s = run_suite(f.suite("  - {name: ok, command: pass, seeds: [1, 2, 3, 4, 5, 6, 7]}\n"), o, db);
  CHECK(s.selected == 2);
  CHECK(db.finished_tests(s.run_id) == std::set<std::string>{"ok/seed=2", "ok/seed=5"});
  CHECK(db.run(s.run_id)->shard == "2/3");
  CHECK(db.run(s.run_id)->planned == 2);
}

TEST_CASE("with a process per core, run tests that do not choose get --threads 1") {
  const char* groups = R"(  - {name: plain, command: run}
  - {name: chosen, command: run, args: {threads: 2}}
  - {name: other, command: pass}
)";
  for (const bool one : {false, true}) {
    INFO("one_thread_per_run " << one);
    Fixture f;
    HistoryDb db(f.dir / "r.db");
    RunnerOptions o = f.options();
    o.one_thread_per_run = one;
    const RunSummary sum = run_suite(f.suite(groups), o, db);
    CHECK(sum.counts.pass == 3);
    const auto command = [&](const char* test) {
      return read_text((std::filesystem::path(f.dir / "out") / "tests" / test / "command.txt").string());
    };
    CHECK(count_of(command("plain"), "--threads 1") == (one ? 1u : 0u));
    CHECK(count_of(command("chosen"), "--threads") == 1);
    CHECK(count_of(command("chosen"), "--threads 2") == 1);
    CHECK(count_of(command("other"), "--threads") == 0);
    // The reproduce command is the suite's, whatever the runner added.
    CHECK(db.results(sum.run_id).at(0).command == "mxcosim run");
  }
}

TEST_CASE("the CPUs of a cgroup v2 quota are its quota over its period rounded up") {
  CHECK(cpus_of_cpu_max("200000 100000") == 2u);
  CHECK(cpus_of_cpu_max("150000 100000\n") == 2u);
  CHECK(cpus_of_cpu_max("50000 100000") == 1u);
  CHECK(cpus_of_cpu_max("max 100000") == std::nullopt);
  CHECK(cpus_of_cpu_max("") == std::nullopt);
  CHECK(cpus_of_cpu_max("12x 100000") == std::nullopt);
  CHECK(cpus_of_cpu_max("100000 0") == std::nullopt);
}

TEST_CASE("the usable CPUs are those of the affinity mask") {
  cpu_set_t saved;
  REQUIRE(sched_getaffinity(0, sizeof saved, &saved) == 0);
  CHECK(usable_cpus() <= static_cast<unsigned>(CPU_COUNT(&saved)));
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  const unsigned n = usable_cpus();
  REQUIRE(sched_setaffinity(0, sizeof saved, &saved) == 0);
  CHECK(n == 1);
}

TEST_CASE("test ids that sanitize alike get folders of their own") {
  // '/' is written "__" and unsafe characters '_': these pairs used to share a folder.
  CHECK(test_dir_name("g/m:64") != test_dir_name("g/m_64"));
  CHECK(test_dir_name("g/a/b") != test_dir_name("g/a__b"));
  CHECK(test_dir_name("g/a_/b") != test_dir_name("g/a/_b"));
  // Plain ids keep their readable names.
  CHECK(test_dir_name("ok/seed=1") == "ok__seed=1");
  CHECK(test_dir_name("mut/skew_off_by_one/inject-fault=17") == "mut__skew_off_by_one__inject-fault=17");
  // 64-bit FNV-1a of the id, folded to 32 bits (computed apart, in Python).
  CHECK(test_dir_name("g/m:64") == "g__m_64~e2514a60");
  CHECK(test_dir_name("g/m:64") == test_dir_name("g/m:64"));
  // Never the folder itself or its parent.
  CHECK(test_dir_name("..").rfind("..~", 0) == 0);
  CHECK(test_dir_name(".").rfind(".~", 0) == 0);
}

TEST_CASE("with -j 2, tests whose ids sanitize alike keep their own logs and results") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  // x:1 writes its results at once and ends late; x_1 writes 999 while x:1
  // still runs. In one shared folder x:1 was recorded with 999 and both
  // rows pointed at one log.
  const Suite s = f.suite(
      "  - name: g\n    command: timed\n    workloads:\n"
      "      - {name: 'x:1', rtl: 100, before: 0, after: 1.0}\n"
      "      - {name: 'x_1', rtl: 999, before: 0.4, after: 0}\n");
  const RunSummary sum = run_suite(s, f.options(2), db);
  CHECK(sum.counts.pass == 2);
  const auto res = db.results(sum.run_id);
  REQUIRE(res.size() == 2);
  CHECK(res[0].test_id == "g/x:1");
  CHECK(res[0].cycles_rtl == 100);
  CHECK(res[1].test_id == "g/x_1");
  CHECK(res[1].cycles_rtl == 999);
  CHECK(res[0].log_dir != res[1].log_dir);
  CHECK(read_text(res[0].log_dir + "/stdout.log") == "rtl 100\n");
  CHECK(read_text(res[1].log_dir + "/stdout.log") == "rtl 999\n");
}

namespace {
// Three tests tagged a, the second of which hangs while the file `hang` is
// there, and three tagged b; every test also carries `all`.
const char* kTagged = R"(  - {name: a1, command: pass, tags: [a, all]}
  - {name: a2, command: hang, tags: [a, all]}
  - {name: a3, command: pass, tags: [a, all]}
  - {name: b, command: pass, seeds: [1, 2, 3], tags: [b, all]}
)";

RunnerOptions tagged(Fixture& f, const std::string& tag) {
  RunnerOptions o = f.options(1);
  o.tag = tag;
  return o;
}

// `--tag a` stopped after a1: the run plans a1, a2 and a3 and has a1 only.
std::int64_t interrupted_tag_a_run(Fixture& f, const Suite& s, HistoryDb& db) {
  write_text(f.dir / "hang", "");
  const RunSummary first = f.run_until_hang(s, tagged(f, "a"), db);
  REQUIRE(first.interrupted);
  REQUIRE(db.finished_tests(first.run_id) == std::set<std::string>{"a1"});
  std::filesystem::remove(f.dir / "hang");
  return first.run_id;
}

// Four tests, and a fifth tagged x.
const char* kFive = "  - {name: ok, command: pass, seeds: [1, 2, 3, 4]}\n  - {name: n, command: pass, tags: [x]}\n";

// A run of kFive whose first command planned all 5 tests, finished
// ok/seed=1 and was killed. Its plan lists the ids, or only counts them (a
// run recorded before plans were kept).
std::int64_t killed_run(HistoryDb& db, const Suite& s, bool listed) {
  const auto run = stopped_run(db, {"ok/seed=1"}, listed ? 0 : 5);
  if (listed) {
    std::vector<std::string> ids;
    for (const auto& t : s.tests) ids.push_back(t.id);
    db.add_to_plan(run, ids, "");
  }
  return run;
}
}  // namespace

TEST_CASE("a filter on resume runs its tests but neither shrinks the run's plan nor completes it") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite(kFive);
  const auto run = killed_run(db, s, true);

  // A tag no test carries is an error naming it, and changes nothing.
  RunnerOptions none = f.options();
  none.tag = "nightly";
  CHECK_THROWS_WITH(run_suite(s, none, db), "--tag 'nightly': no test of suite 's' carries it");
  CHECK(db.run(run)->planned == 5);
  CHECK(db.run(run)->state == "interrupted");

  // A shard runs its tests into the run, which stays due.
  RunnerOptions shard = f.options();
  shard.shard = parse_shard("2/2");
  const RunSummary part = run_suite(s, shard, db);
  CHECK(part.run_id == run);
  CHECK(part.ran == 2);  // ok/seed=2, ok/seed=4
  CHECK(db.run(run)->planned == 5);
  CHECK(db.run(run)->shard == "");
  CHECK(db.run(run)->state == "interrupted");
  // So does a tag.
  RunnerOptions tag = f.options();
  tag.tag = "x";
  CHECK(run_suite(s, tag, db).ran == 1);
  CHECK(db.run(run)->state == "interrupted");

  // The plain command resumes the same run and runs only what is left.
  const RunSummary rest = run_suite(s, f.options(), db);
  CHECK(rest.run_id == run);
  CHECK(rest.ran == 1);  // ok/seed=3
  CHECK(db.finished_tests(run).size() == 5);
  CHECK(db.run(run)->state == "complete");
  CHECK(f.calls("pass") == 4);

  // A shard beyond the tests is an error naming it.
  RunnerOptions far = f.options();
  far.shard = parse_shard("7/9");
  CHECK_THROWS_WITH(run_suite(f.suite("  - {name: a, command: pass, seeds: [1, 2]}\n"), far, db),
                    "--shard 7/9: no test falls in it (2 tests selected)");
}

TEST_CASE("a resume with another tag selecting as many tests adds them to the run's plan but does not complete it") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite(kTagged);
  const auto run = interrupted_tag_a_run(f, s, db);
  CHECK(db.run(run)->planned == 3);

  // Three other tests: the count matched the plan's, and the run used to be
  // marked complete with a2 and a3 never run.
  const RunSummary other = run_suite(s, tagged(f, "b"), db);
  CHECK(other.run_id == run);
  CHECK(other.ran == 3);
  CHECK(db.run(run)->state == "interrupted");
  CHECK(db.run(run)->planned == 6);
  CHECK(other.planned == 6);
  CHECK(other.planned_done == 4);

  // The first command runs what it left and completes the run.
  const RunSummary rest = run_suite(s, tagged(f, "a"), db);
  CHECK(rest.run_id == run);
  CHECK(rest.ran == 2);
  CHECK(rest.already_done == 1);
  CHECK(db.run(run)->state == "complete");
  CHECK(rest.planned_done == 6);
  CHECK(db.finished_tests(run).size() == 6);
}

TEST_CASE("a resume with a tag that includes the run's plan completes it") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite(kTagged);
  const auto run = interrupted_tag_a_run(f, s, db);
  const RunSummary all = run_suite(s, tagged(f, "all"), db);
  CHECK(all.run_id == run);
  CHECK(all.ran == 5);
  CHECK(db.run(run)->state == "complete");
  CHECK(db.run(run)->planned == 6);
  CHECK(db.planned_tests(run).size() == 6);
}

TEST_CASE("an unfinished run says whether its shard without --tag would finish it") {
  // Shards are taken after the tag: `--tag a --shard 1/2` of x, a1, y, a2 is
  // a1, which the suite's own shard 1/2 (x and y) does not hold.
  const auto suite_with_hang = [](Fixture& f, const std::string& hanging) {
    std::string g = "  - {name: x, command: pass, tags: [b]}\n  - {name: a1, command: pass, tags: [a]}\n"
                    "  - {name: y, command: pass, tags: [b]}\n  - {name: a2, command: pass, tags: [a]}\n";
    const std::string passing = "name: " + hanging + ", command: pass";
    g.replace(g.find(passing), passing.size(), "name: " + hanging + ", command: hang");
    return f.suite(g);
  };
  const auto in_shard = [](Fixture& f, const std::string& tag) {
    RunnerOptions o = tagged(f, tag);
    o.shard = parse_shard("1/2");
    return o;
  };
  // `finish` follows the stopped command `stopped` on the run; what does the summary say?
  const auto after = [&](const char* hanging, const std::string& stopped, const std::string& finish, bool shard_finishes) {
    Fixture f;
    HistoryDb db(f.dir / "r.db");
    const Suite s = suite_with_hang(f, hanging);
    write_text(f.dir / "hang", "");
    const RunSummary first = f.run_until_hang(s, in_shard(f, stopped), db);
    REQUIRE(first.interrupted);
    std::filesystem::remove(f.dir / "hang");
    const RunSummary second = run_suite(s, in_shard(f, finish), db);
    CHECK(second.run_id == first.run_id);
    CHECK(second.planned == 2);
    CHECK(second.planned_done == 1);
    CHECK(second.shard_finishes == shard_finishes);
    CHECK(db.run(first.run_id)->state == "interrupted");
    // What the summary then names finishes the run.
    RunnerOptions o = f.options(1);
    if (shard_finishes) o.shard = parse_shard("1/2");
    const RunSummary last = run_suite(s, o, db);
    CHECK(last.run_id == first.run_id);
    CHECK(db.run(first.run_id)->state == "complete");
  };
  after("a1", "a", "b", false);  // a1 missing: the suite's shard 1/2 is x and y
  after("x", "b", "a", true);    // x missing: in that shard
}

TEST_CASE("a run recorded before plans were kept counts only its shard's results as done") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite("  - {name: ok, command: pass, seeds: [1, 2, 3, 4]}\n");
  const auto run = stopped_run(db, {"ok/seed=2"}, 2, "2/2");  // shard 2/2: seeds 2 and 4
  // The other shard runs its two tests into the run: they are not its plan.
  RunnerOptions other = f.options(1);
  other.shard = parse_shard("1/2");
  const RunSummary sum = run_suite(s, other, db);
  CHECK(sum.run_id == run);
  CHECK(sum.ran == 2);
  CHECK(sum.planned == 2);
  CHECK(sum.planned_done == 1);
  CHECK(sum.shard_finishes);
  CHECK(db.run(run)->state == "interrupted");
  other.shard = parse_shard("2/2");
  CHECK(run_suite(s, other, db).ran == 1);
  CHECK(db.run(run)->state == "complete");
}

TEST_CASE("a database at schema 2 is migrated, and its runs keep their planned count") {
  Fixture f;
  const Suite s = f.suite(kFive);
  std::int64_t run = 0;
  {
    // Schema 2 as an older build left it: the tables but those of migrations 3 and 4.
    HistoryDb old(f.dir / "r.db");
    run = killed_run(old, s, false);
    old.exec("DROP TABLE planned_tests; DROP TABLE suite_tests; UPDATE schema_version SET version = 2");
  }
  HistoryDb db(f.dir / "r.db");
  CHECK(db.schema_version() == HistoryDb::kSchemaVersion);
  // A narrower tag runs its test into the run, which stays due.
  RunnerOptions tag = f.options();
  tag.tag = "x";
  const RunSummary part = run_suite(s, tag, db);
  CHECK(part.run_id == run);
  CHECK(part.ran == 1);
  CHECK(part.planned == 5);
  CHECK(part.planned_done == 2);
  CHECK(db.run(run)->state == "interrupted");
  CHECK(db.run(run)->planned == 5);
  CHECK(db.planned_tests(run).empty());
  // The first command finishes it by its count.
  const RunSummary rest = run_suite(s, f.options(), db);
  CHECK(rest.run_id == run);
  CHECK(rest.ran == 3);
  CHECK(db.run(run)->state == "complete");
  // The next run is a new one and lists its plan.
  const RunSummary next = run_suite(s, f.options(), db);
  CHECK_FALSE(next.resumed);
  CHECK(db.planned_tests(next.run_id).size() == 5);
  CHECK(db.run(next.run_id)->planned == 5);
  CHECK(db.run(next.run_id)->state == "complete");
}

TEST_CASE("a runner's subprocess that starts after its runner died ends at once, one under a wrapper runs") {
  // The environment names the runner (Subprocess sets it). A test process that a slow start
  // (a sanitizer build's) brought to this check after its runner was killed found another
  // parent, took itself for a wrapper's child and ran on, orphaned.
  const auto with_parent = [](const std::string& pid) {
    ::setenv("MXCOSIM_SUBPROCESS_PARENT", pid.c_str(), 1);
    const bool go_on = end_with_parent_if_its_subprocess();
    ::unsetenv("MXCOSIM_SUBPROCESS_PARENT");
    return go_on;
  };
  // A process that has ended: its pid names no process any more.
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  REQUIRE(gone > 0);
  int status = 0;
  REQUIRE(waitpid(gone, &status, 0) == gone);
  CHECK_FALSE(with_parent(std::to_string(gone)));
  // A live process other than the parent: a wrapper started this one, and the runner lives.
  CHECK(with_parent(std::to_string(getpid())));
  CHECK(end_with_parent_if_its_subprocess());  // not a runner's subprocess at all
}

TEST_CASE("a test id too long for a file name gets a cut folder name ending in its hash") {
  const std::string x300(300, 'x');
  // "g__" and 188 of the x make 191 bytes, "~" and 8 hex digits of the id's hash (FNV-1a,
  // folded as for the other hashed names) 9 more.
  CHECK(test_dir_name("g/" + x300) == "g__" + std::string(188, 'x') + "~b794d827");
  CHECK(test_dir_name("g/" + std::string(197, 'x')) == "g__" + std::string(197, 'x'));  // 200 bytes: kept whole
  CHECK(test_dir_name("g/" + std::string(198, 'x')).size() == 200);
  CHECK(test_dir_name("g/m:64") == "g__m_64~e2514a60");  // short ones as before
  // It used to stop the run at that test ("File name too long"), the run left running, no reports.
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite("  - {name: a, command: pass}\n  - {name: g, command: pass, configs: [{name: " + x300 +
                          "}]}\n  - {name: c, command: pass}\n");
  const RunSummary sum = run_suite(s, f.options(1), db);
  CHECK(sum.counts.pass == 3);
  CHECK(db.run(sum.run_id)->state == "complete");
  CHECK(std::filesystem::is_directory(f.dir / ("out/tests/g__" + std::string(188, 'x') + "~b794d827")));
}

TEST_CASE("a test whose folder cannot be set up is that test's error, and the tests after it run") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  // What an earlier attempt left in b's folder cannot be moved aside: a file holds the place of the
  // folder of the run's earlier attempts (the run is the database's first).
  std::filesystem::create_directories(f.dir / "out/tests/b/results.json/kept");
  std::filesystem::create_directories(f.dir / "out/runs");
  write_text(f.dir / "out/runs/1", "");
  const Suite s = f.suite("  - {name: a, command: pass}\n  - {name: b, command: pass}\n  - {name: c, command: pass}\n");
  const RunSummary sum = run_suite(s, f.options(1), db);
  CHECK(sum.counts.pass == 2);
  CHECK(sum.counts.error == 1);
  CHECK(f.calls("pass") == 2);  // a and c; b never started
  const auto res = db.results(sum.run_id);
  REQUIRE(res.size() == 3);
  CHECK(res[1].test_id == "b");
  CHECK(res[1].status == "error");
  CHECK(res[1].message.rfind("cannot set up the test's folder: ", 0) == 0);
  CHECK(res[1].message.find("out/runs/1") != std::string::npos);
  CHECK(res[1].command == "mxcosim pass");
  CHECK(db.run(sum.run_id)->state == "complete");
}

TEST_CASE("without a label the newest unfinished run with a date label is continued, whatever its date") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite("  - {name: ok, command: pass, seeds: [1, 2]}\n");
  auto stopped = [&](const std::string& label, const std::string& shard) {
    RunInfo k{.suite = "s", .rev = "r1", .label = label, .shard = shard};
    const auto run = db.create_run(k);
    db.add_to_plan(run, {"ok/seed=1", "ok/seed=2"}, shard);
    TestRecord r;
    r.test_id = "ok/seed=1";
    r.status = "pass";
    db.record(run, r);
    db.set_run_state(run, "interrupted", utc_now());
    return run;
  };
  // Interrupted before midnight UTC; then a run labelled by hand, and one of a shard.
  const auto night = stopped("2020-01-31.2", "");
  stopped("mine", "");
  stopped("2020-02-01", "1/2");
  RunnerOptions o = f.options();
  o.label = "";
  CHECK(run_to_continue(db, s, o) == night);
  const RunSummary sum = run_suite(s, o, db);
  CHECK(sum.resumed);
  CHECK(sum.run_id == night);
  CHECK(sum.ran == 1);
  CHECK(f.calls("pass") == 1);
  CHECK(db.run(night)->state == "complete");
  // Complete now: the next command starts today's run.
  const RunSummary next = run_suite(s, o, db);
  CHECK_FALSE(next.resumed);
  CHECK(db.run(next.run_id)->label == utc_now().substr(0, 10));
}

TEST_CASE("a resumed run whose suite lost tests drops them from its plan and completes") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  // The run planned three groups, finished ok/seed=1 and gone/seed=1, then the suite lost group gone.
  const auto run = stopped_run(db, {"ok/seed=1", "gone/seed=1"});
  db.add_to_plan(run, {"ok/seed=1", "gone/seed=1", "gone/seed=2", "ok/seed=2", "gone/seed=3"}, "");
  const RunSummary sum = run_suite(f.suite("  - {name: ok, command: pass, seeds: [1, 2]}\n"), f.options(), db);
  CHECK(sum.run_id == run);
  CHECK(sum.dropped == std::vector<std::string>{"gone/seed=2", "gone/seed=3"});
  CHECK(sum.ran == 1);
  // The one with a result stays: it ran in this run.
  CHECK(db.planned_tests(run) == std::set<std::string>{"gone/seed=1", "ok/seed=1", "ok/seed=2"});
  CHECK(db.run(run)->planned == 3);
  CHECK(sum.planned == 3);
  CHECK(sum.planned_done == 3);
  CHECK(db.run(run)->state == "complete");
}

TEST_CASE("a merge without one shard plans that shard's tests: not run in JUnit, regressions against a baseline") {
  Fixture f;
  const Suite s = f.suite("  - {name: ok, command: pass, seeds: [1, 2, 3, 4, 5, 6]}\n");
  for (int k = 1; k <= 3; ++k) {
    HistoryDb db(f.dir / ("s" + std::to_string(k) + ".db"));
    RunnerOptions o = f.options();
    o.out_dir = f.dir / ("out" + std::to_string(k));
    o.shard = parse_shard(std::to_string(k) + "/3");
    run_suite(s, o, db);
  }
  HistoryDb all(f.dir / "all.db");
  {
    // A complete run at r0 where every test passed.
    RunInfo k{.suite = "s", .rev = "r0", .label = "before", .started_at = "2020-01-01T00:00:00Z"};
    const auto base = all.create_run(k);
    for (int seed = 1; seed <= 6; ++seed) {
      TestRecord r;
      r.test_id = "ok/seed=" + std::to_string(seed);
      r.test_index = seed - 1;
      r.status = "pass";
      all.record(base, r);
    }
    all.set_run_state(base, "complete", "2020-01-01T01:00:00Z");
  }
  // Shard 3/3 (seeds 3 and 6) never arrives.
  merge_databases(all, {f.dir / "s1.db", f.dir / "s2.db"});
  ReportSelection sel;
  sel.suite = "s";
  sel.rev = "r1";
  sel.baseline_rev = "r0";
  ReportData d = load_report_data(all, sel);
  CHECK(d.run.planned == 6);
  CHECK(d.run.state == "interrupted");
  CHECK(d.not_run == std::vector<std::string>{"ok/seed=3", "ok/seed=6"});
  REQUIRE(d.regressions.size() == 2);
  CHECK(d.regressions[0].test_id == "ok/seed=3");
  CHECK(d.regressions[0].current == "not run");
  CHECK(d.regressions[1].test_id == "ok/seed=6");
  std::ostringstream xml;
  write_junit(d, xml);
  CHECK(xml.str().find("tests=\"6\" failures=\"0\" errors=\"2\"") != std::string::npos);
  CHECK(count_of(xml.str(), "type=\"not-run\"") == 2);
  // Once it is merged the run is complete, with nothing regressed.
  merge_databases(all, {f.dir / "s3.db"});
  d = load_report_data(all, sel);
  CHECK(d.run.planned == 6);
  CHECK(d.run.state == "complete");
  CHECK(d.not_run.empty());
  CHECK(d.regressions.empty());
}

TEST_CASE("the tests an interrupted run did not run are reported in suite order, not by name") {
  Fixture f;
  write_text(f.dir / "hang", "");
  HistoryDb db(f.dir / "r.db");
  // By name the order would be alpha, b/seed=10, b/seed=2, zeta.
  const Suite s = f.suite("  - {name: zeta, command: hang}\n  - {name: b, command: pass, seeds: [2, 10]}\n"
                          "  - {name: alpha, command: pass}\n");
  const std::vector<std::string> suite_order{"zeta", "b/seed=2", "b/seed=10", "alpha"};
  // Stopped while zeta, the first test, runs: none of them has a result.
  const RunSummary sum = f.run_until_hang(s, f.options(1), db);
  REQUIRE(sum.interrupted);
  CHECK(db.plan_in_order(sum.run_id) == suite_order);
  const ReportData d = load_report_data(db, {});
  CHECK(d.not_run == suite_order);
}

TEST_CASE("a run whose wrapper exits 0 is judged by its results file: failed or mutation found or none written") {
  // A site wrapper that loses the exit status of the run it started: the `--how` argument says
  // which results that run left.
  TempDir dir;
  write_text(dir / "wrapper.sh", R"(#!/bin/sh
how=$3 json=''
while [ $# -gt 0 ]; do [ "$1" = --json ] && json=$2; shift; done
case $how in
  mismatch) echo '{"status":"fail","mismatch_count":1,"mismatches":[{"where":"sb","id":"C[0][1]","field":"value",
               "expected":"1","actual":"0"}]}' > "$json" ;;
  clean) echo '{"status":"pass","mismatch_count":0,"mismatches":[]}' > "$json" ;;
esac
echo "wrapper: done"
exit 0
)");
  std::filesystem::permissions(dir / "wrapper.sh", std::filesystem::perms::owner_all);
  const Suite s = parse_suite("suite: s\ngroups:\n  - {name: lost, args: {how: mismatch}}\n"
                              "  - {name: mutation, args: {how: mismatch}, expect: fail}\n"
                              "  - {name: missed, args: {how: clean}, expect: fail}\n"
                              "  - {name: nothing, args: {how: none}}\n  - {name: ok, args: {how: clean}}\n"
                              "  - {name: flipped, args: {how: clean, inject-fault: 5}, expect: fail}\n",
                              "s.yaml");
  const RunnerOptions o = quiet_options(dir / "wrapper.sh", dir / "out");
  HistoryDb db(dir / "r.db");
  const RunSummary sum = run_suite(s, o, db);
  const auto res = db.results(sum.run_id);
  REQUIRE(res.size() == 6);
  CHECK(res[0].status == "fail");
  CHECK(res[0].message == "sb C[0][1] value: expected 1, got 0");
  CHECK(res[1].status == "pass");
  CHECK(res[2].status == "fail");
  // No fault in its arguments: the message claims none.
  CHECK(res[2].message == "expected to fail (expect: fail) but passed: no mismatch recorded");
  CHECK(res[3].status == "error");
  CHECK(res[3].message == "exited 0 but wrote no results.json");
  CHECK(res[4].status == "pass");
  CHECK(res[5].status == "fail");
  CHECK(res[5].message == "mutation not detected: the run passed although it ran with --inject-fault 5");
}

namespace {
// SIGCHLD ignored, as a parent can leave it for the programs it starts, until destroyed.
struct ChildSignalIgnored {
  struct sigaction old {};
  ChildSignalIgnored() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGCHLD, &ignore, &old);
  }
  ~ChildSignalIgnored() { sigaction(SIGCHLD, &old, nullptr); }
};
}  // namespace

TEST_CASE("a child the kernel reaped itself is an error naming waitpid's errno and not a test still running") {
  TempDir dir;
  std::optional<ProcessOutcome> o;
  pid_t pid = 0;
  {
    const ChildSignalIgnored ignored;
    Subprocess p({"/bin/sh", "-c", "exit 0"}, dir / "out.log", dir / "err.log", 5);
    pid = p.pid();
    while (!(o = p.poll())) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // It used to be taken for running until its timeout.
  REQUIRE(o->kind == ProcessOutcome::Kind::wait_failed);
  const Verdict v = decide(*o, {}, "", false, 5);
  CHECK(v.status == "error");
  CHECK(v.message == "cannot wait for the test's process " + std::to_string(pid) +
                         ": waitpid failed with errno " + std::to_string(ECHILD) + " (" + std::strerror(ECHILD) + ")");
}

namespace {
// A shutdown (scancel, a time limit, a container stop) signals the tests and the runner in no
// fixed order: here the group of test t (the fake's `command`, which names itself in held.pid
// and waits) gets SIGTERM, and the runner's stop comes once it has reaped the test. The test
// is left without a result and a resume runs it.
void check_shutdown_leaves_the_test_to_resume(const std::string& command) {
  Fixture f;
  write_text(f.dir / "hold", "");
  HistoryDb db(f.dir / "r.db");
  const Suite s = f.suite("  - {name: a, command: pass}\n  - {name: t, command: " + command + "}\n");
  RunnerOptions o = f.options(1);
  o.shutdown_grace_seconds = 600;  // the stop comes long before: no timing decides the outcome
  std::atomic<bool> stop{false}, ended{false};
  o.stop = &stop;
  std::thread shutdown([&] {
    const std::string pid_file = f.dir / "held.pid";
    while (!ended && !std::filesystem::exists(pid_file)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (ended) return;
    const pid_t pid = std::stoi(read_text(pid_file));
    ::kill(-pid, SIGTERM);
    // Reaped by the runner once kill() no longer finds it (a zombie is still found).
    while (!ended && ::kill(pid, 0) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stop = true;
  });
  struct Join {
    std::atomic<bool>& ended;
    std::thread& thread;
    ~Join() {
      ended = true;
      thread.join();
    }
  };
  RunSummary first;
  {
    const Join join{ended, shutdown};
    first = run_suite(s, o, db);
  }
  CHECK(first.interrupted);
  // It was recorded as `error crash: SIGTERM`, which a resume never ran again.
  CHECK(db.finished_tests(first.run_id) == std::set<std::string>{"a"});
  CHECK(db.run(first.run_id)->state == "interrupted");

  std::filesystem::remove(f.dir / "hold");
  o.stop = nullptr;
  const RunSummary second = run_suite(s, o, db);
  CHECK(second.run_id == first.run_id);
  CHECK(second.ran == 1);
  CHECK(f.calls(command) == 2);
  const auto res = db.results(first.run_id);
  REQUIRE(res.size() == 2);
  CHECK(res[1].test_id == "t");
  CHECK(res[1].status == "pass");
  CHECK(db.run(first.run_id)->state == "complete");
}
}  // namespace

TEST_CASE("a test killed by the shutdown's SIGTERM before the runner stops is left not run and a resume runs it") {
  check_shutdown_leaves_the_test_to_resume("held");
}

TEST_CASE("a test that catches the shutdown's SIGTERM and exits 130 is left not run and a resume runs it") {
  // As `mxcosim run` does: it keeps its results and exits 130 rather than die of the signal.
  // Recorded at once as `error exit code 130`, a resume never ran it again.
  check_shutdown_leaves_the_test_to_resume("stopped");
}

TEST_CASE("a test that exits 130 with no stop after it is recorded as stopped by a signal") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  RunnerOptions o = f.options(1);
  o.shutdown_grace_seconds = 0.05;
  const RunSummary s = run_suite(f.suite("  - {name: t, command: exit130}\n  - {name: a, command: pass}\n"), o, db);
  CHECK_FALSE(s.interrupted);
  const auto res = db.results(s.run_id);
  REQUIRE(res.size() == 2);
  CHECK(res[0].status == "error");
  CHECK(res[0].message == "stopped by a signal (exit 130): mxcosim run: interrupted");
  CHECK(res[0].exit_code == 130);
  CHECK(res[1].status == "pass");
}

TEST_CASE("a test that dies of SIGTERM with no stop after it is recorded as a crash") {
  Fixture f;
  HistoryDb db(f.dir / "r.db");
  RunnerOptions o = f.options(1);
  o.shutdown_grace_seconds = 0.05;
  const RunSummary s = run_suite(f.suite("  - {name: t, command: term}\n  - {name: a, command: pass}\n"), o, db);
  CHECK_FALSE(s.interrupted);
  const auto res = db.results(s.run_id);
  REQUIRE(res.size() == 2);
  CHECK(res[0].status == "error");
  CHECK(res[0].message == "crash: SIGTERM");
  CHECK(res[1].status == "pass");
  CHECK(db.run(s.run_id)->state == "complete");
}

TEST_CASE("the runner runs the image it opened at its start although another file took its place") {
  // The program is a copy of env(1), an ELF binary as mxcosim is; env runs the test's first
  // argument from bin/. Test a replaces the program with a script; test b must still run env.
  TempDir dir;
  const std::string prog = dir / "prog", bin = dir / "bin";
  std::filesystem::copy_file("/usr/bin/env", prog);
  std::filesystem::create_directories(bin);
  write_text(bin + "/swap", "#!/bin/sh\nrm -f " + prog + "\nprintf '#!/bin/sh\\necho replaced >> " + (dir / "marks") +
                                "\\nexit 3\\n' > " + prog + "\nchmod +x " + prog + "\n");
  write_text(bin + "/ok", "#!/bin/sh\necho ok >> " + (dir / "marks") + "\n");
  for (const char* f : {"/swap", "/ok"}) std::filesystem::permissions(bin + f, std::filesystem::perms::owner_all);
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", (bin + ":" + old_path).c_str(), 1);
  struct Restore {
    std::string path;
    ~Restore() { ::setenv("PATH", path.c_str(), 1); }
  } restore{old_path};

  const Suite s =
      parse_suite("suite: s\ngroups:\n  - {name: a, command: swap}\n  - {name: b, command: ok}\n", "s.yaml");
  RunnerOptions o = quiet_options(prog, dir / "out");
  o.image = prog;
  HistoryDb db(dir / "r.db");
  const RunSummary sum = run_suite(s, o, db);
  const auto res = db.results(sum.run_id);
  REQUIRE(res.size() == 2);
  CHECK(res[0].status == "pass");
  // The replacement used to run it: "error exit code 3".
  CHECK(res[1].status == "pass");
  CHECK(read_text(dir / "marks") == "ok\n");
  // command.txt names the program by its path, as it was given.
  CHECK(read_text(dir / "out/tests/b/command.txt").rfind(prog + " ok --json ", 0) == 0);
}
