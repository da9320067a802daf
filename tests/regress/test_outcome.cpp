// Results files read defensively, and the verdict of each way a test can end.
#include <catch2/catch.hpp>
#include <csignal>

#include "regress/outcome.h"
#include "regress/regression_check.h"
#include "regress/result_reader.h"

using namespace mxc::regress;

namespace {
ProcessOutcome exited(int code) {
  ProcessOutcome p;
  p.kind = ProcessOutcome::Kind::exited;
  p.exit_code = code;
  return p;
}
const char* kFailedRun = R"({"schema_version": 1, "status": "fail", "error": "",
  "cycles": {"rtl": 1234}, "instructions": 12, "mismatch_count": 1, "sim_time_ns": 1234.0,
  "mismatches": [{"time_ps": 1234000, "where": "data scoreboard", "id": "C[0][5]", "field": "value",
                  "expected": "0x0000002a", "actual": "0x0000002b"}]})";
}  // namespace

TEST_CASE("results.json: present fields are extracted, missing or mistyped ones stay null") {
  TestRecord r;
  const ResultsFile f = read_results_json(kFailedRun, r);
  CHECK(f.parsed);
  CHECK(f.status == "fail");
  CHECK_FALSE(f.error);  // an empty error string means none
  CHECK(f.first_mismatch == "data scoreboard C[0][5] value: expected 0x0000002a, got 0x0000002b at 1234000 ps");
  CHECK(r.cycles_rtl == 1234);
  CHECK_FALSE(r.cycles_model);
  CHECK(r.instructions == 12);
  CHECK(r.mismatch_count == 1);
  CHECK_FALSE(r.utilisation);
  CHECK(r.results_json == kFailedRun);

  TestRecord q;
  read_results_json(R"({"cycles": {"rtl": "many", "model": 90}, "utilization": 0.5, "bandwidth": {"gbps": 12.5},
                       "mismatches": "none"})",
                    q);
  CHECK_FALSE(q.cycles_rtl);
  CHECK(q.cycles_model == 90);
  CHECK(q.utilisation == 0.5);
  CHECK(q.bandwidth_gbps == 12.5);

  // The bandwidth of `mxcosim model` (achieved_gbps) and of `mxcosim hbm` (read plus write): it
  // was null for both, so their tests had no bandwidth in any report.
  TestRecord achieved;
  read_results_json(R"({"cycles": 8501, "achieved_gbps": 31.25})", achieved);
  CHECK(achieved.bandwidth_gbps == 31.25);
  TestRecord hbm;
  read_results_json(R"({"read_bandwidth_gbps": 200.5, "write_bandwidth_gbps": 40.25})", hbm);
  CHECK(hbm.bandwidth_gbps == 240.75);
  TestRecord reads;
  read_results_json(R"({"read_bandwidth_gbps": 250.0})", reads);
  CHECK(reads.bandwidth_gbps == 250.0);
  // `mxcosim model` writes its performance model's cycles as a plain number.
  TestRecord model;
  read_results_json(R"({"cycles": 8501, "utilization": 0.25})", model);
  CHECK_FALSE(model.cycles_rtl);
  CHECK(model.cycles_model == 8501);
  CHECK(model.utilisation == 0.25);

  // A run that stopped before its end (a hang) has the cycles of where it
  // stopped: no model cycles, so no model error in the report's histogram,
  // trend or regression check (results.json leaves cycle_error_percent out).
  TestRecord hung;
  const ResultsFile stopped =
      read_results_json(R"({"status": "fail", "error": "hang: no progress for 100000 cycles",
                            "cycles": {"rtl": 100500, "model": 4251}})",
                        hung);
  CHECK(stopped.error == "hang: no progress for 100000 cycles");
  CHECK(hung.cycles_rtl == 100500);
  CHECK_FALSE(hung.cycles_model);
  CHECK_FALSE(model_error_pct(hung));

  TestRecord z;
  CHECK_FALSE(read_results_json("{not json", z).parsed);
  CHECK_FALSE(read_results_json("[1, 2]", z).parsed);
  CHECK_FALSE(read_results_file("/nonexistent/results.json", z).parsed);
}

TEST_CASE("a message longer than the limit keeps its start and its end around a marker") {
  const std::string line = "mxcosim run: error: " + std::string(100000, 'x') + " the end";
  const Verdict v = decide(exited(3), {}, "earlier line\n" + line + "\n", false, 60);
  INFO(v.message.substr(0, 200));
  CHECK(v.message.size() <= kMaxMessage);
  CHECK(v.message.size() > kMaxMessage - 10);
  CHECK(v.message.rfind("exit code 3: mxcosim run: error: xxx", 0) == 0);
  const std::string cut =
      " [... " + std::to_string(13 + line.size()) + " bytes in all: the test's logs have the rest ...] ";
  CHECK(v.message.find(cut) != std::string::npos);
  CHECK(v.message.substr(v.message.size() - 12) == "xxxx the end");
  // Two thirds of the room before the marker, one third after it.
  const auto before = v.message.find(" [... ");
  const auto after = v.message.size() - v.message.find("...] ") - 5;
  CHECK(before >= 2 * after - 2);
  CHECK(before <= 2 * after + 2);
  // A message within the limit is kept whole.
  CHECK(short_message(std::string(kMaxMessage, 'y')) == std::string(kMaxMessage, 'y'));
  // Cut between UTF-8 characters: only whole two-byte characters around the marker.
  std::string mu;
  for (int i = 0; i < 3000; ++i) mu += "\xc2\xb5";
  const std::string shortened = short_message(mu, 101);
  CHECK(shortened.size() <= 101);
  const auto at = shortened.find(" [... "), end = shortened.find("...] ") + 5;
  REQUIRE(at != std::string::npos);
  CHECK(at % 2 == 0);
  CHECK((shortened.size() - end) % 2 == 0);
  CHECK(shortened.substr(0, at) == mu.substr(0, at));
  CHECK(shortened.substr(end) == mu.substr(0, shortened.size() - end));
}

TEST_CASE("verdicts: pass, mismatch, size not built, usage error, crash, timeout, mutation") {
  TestRecord r;
  const ResultsFile failed = read_results_json(kFailedRun, r);
  const ResultsFile none;
  CHECK(decide(exited(0), none, "", false, 60).status == "pass");

  const Verdict mismatch = decide(exited(1), failed, "", false, 60);
  CHECK(mismatch.status == "fail");
  CHECK(mismatch.message == "data scoreboard C[0][5] value: expected 0x0000002a, got 0x0000002b at 1234000 ps");

  const Verdict skipped = decide(
      exited(2), none,
      "mxcosim run: error: no RTL of a 16x16 array in this build; available: 4x4 8x8 (configure with ...)\n", false,
      60);
  CHECK(skipped.status == "skipped");
  CHECK(skipped.message ==
        "size not built: no RTL of a 16x16 array in this build; available: 4x4 8x8 (configure with ...)");

  const Verdict usage = decide(exited(2), none, "mxcosim run: error: unexpected argument 'x'\n\n", false, 60);
  CHECK(usage.status == "error");
  CHECK(usage.message == "usage error: mxcosim run: error: unexpected argument 'x'");
  // The cause, not the pointer to the help that follows it.
  const Verdict option = decide(
      exited(2), none, "mxcosim run: error: Option 'frobnicate' does not exist\n(see mxcosim run --help)\n", false, 60);
  CHECK(option.message == "usage error: mxcosim run: error: Option 'frobnicate' does not exist");
  CHECK(decide(exited(5), none, "cause\n  (see mxcosim model --help)\r\n\n", false, 60).message ==
        "exit code 5: cause");
  // A line that only starts so is a cause.
  CHECK(decide(exited(2), none, "a\n(see the log)\n", false, 60).message == "usage error: (see the log)");

  ProcessOutcome crash;
  crash.kind = ProcessOutcome::Kind::signaled;
  crash.signal = SIGSEGV;
  CHECK(decide(crash, none, "", false, 60).message == "crash: SIGSEGV");
  CHECK(decide(crash, none, "", false, 60).status == "error");

  ProcessOutcome hang;
  hang.kind = ProcessOutcome::Kind::timed_out;
  CHECK(decide(hang, none, "", false, 60).message == "timeout after 60 s");
  CHECK(decide(hang, none, "", false, 2.5).message == "timeout after 2.5 s");

  CHECK(decide(exited(1), failed, "", true, 60).status == "pass");  // mutation caught
  const Verdict missed = decide(exited(0), none, "", true, 60);
  CHECK(missed.status == "fail");
  // Without a fault its arguments name, the message claims none: only what the suite expected.
  CHECK(missed.message == "expected to fail (expect: fail) but passed: no mismatch recorded");
  CHECK(decide(exited(1), none, "", true, 60).status == "fail");  // failed, but not by a mismatch
  CHECK(decide(exited(7), none, "boom\n", false, 60).message == "exit code 7: boom");
}

TEST_CASE("an expected failure that passes names the fault its arguments inject and no other") {
  const ResultsFile none;
  const ResultsFile clean = [] {
    TestRecord r;
    return read_results_json(R"({"status": "pass", "mismatch_count": 0, "mismatches": []})", r);
  }();
  CHECK(injected_fault({"run", "--m", "4", "--inject-fault", "5", "--seed", "1"}) == "--inject-fault 5");
  CHECK(injected_fault({"run", "--mutant", "skew_off_by_one", "--rows", "4"}) == "--mutant skew_off_by_one");
  CHECK(injected_fault({"run", "--inject-fault=7", "--mutant", "r_beat_lost"}) ==
        "--inject-fault=7 --mutant r_beat_lost");
  // A value that only reads like the option is not one; nor is the option with no value after it.
  CHECK(injected_fault({"run", "--program", "inject-fault.s", "--inject-fault"}).empty());
  CHECK(injected_fault({"hbm", "--requests", "10"}).empty());

  const Verdict flipped = decide(exited(0), clean, "", true, 60, true, "--inject-fault 5");
  CHECK(flipped.status == "fail");
  CHECK(flipped.message == "mutation not detected: the run passed although it ran with --inject-fault 5");
  CHECK(decide(exited(0), none, "", true, 60, false, "--mutant wstrb_short").message ==
        "mutation not detected: the run passed although it ran with --mutant wstrb_short");
  const Verdict plain = decide(exited(0), clean, "", true, 60, true, "");
  CHECK(plain.status == "fail");
  CHECK(plain.message == "expected to fail (expect: fail) but passed: no mismatch recorded");
  // The fault does not change any other verdict.
  CHECK(decide(exited(0), clean, "", false, 60, true, "--inject-fault 5").status == "pass");
  TestRecord r;
  CHECK(decide(exited(1), read_results_json(kFailedRun, r), "", true, 60, true, "--inject-fault 5").status == "pass");
}

TEST_CASE("exit 0 is a pass only when results.json does not say the run failed") {
  // A wrapper (--exe) that exits 0 after the run it started failed: its results still say so.
  TestRecord r;
  const ResultsFile failed = read_results_json(kFailedRun, r);
  const Verdict lost = decide(exited(0), failed, "wrapper: done\n", false, 60, true);
  CHECK(lost.status == "fail");
  CHECK(lost.message == "data scoreboard C[0][5] value: expected 0x0000002a, got 0x0000002b at 1234000 ps");
  // A mutation test whose results hold the mismatch detected it, whatever the exit code.
  CHECK(decide(exited(0), failed, "", true, 60, true).status == "pass");
  // A count of mismatches without the list, or a failed status alone.
  const ResultsFile counted = read_results_json(R"({"status": "fail", "mismatch_count": 3})", r);
  CHECK(decide(exited(0), counted, "", false, 60, true).message == "3 mismatch(es), none listed in results.json");
  CHECK(decide(exited(0), counted, "", true, 60, true).status == "pass");
  const ResultsFile status_only = read_results_json(R"({"status": "fail"})", r);
  const Verdict said = decide(exited(0), status_only, "", false, 60, true);
  CHECK(said.status == "fail");
  CHECK(said.message == "exited 0 but its results.json says status 'fail'");
  // A mutation test whose run failed without a mismatch was not caught by the checker either.
  CHECK(decide(exited(0), status_only, "", true, 60, true).status == "fail");
  // The results of a passing run, and those `mxcosim model`, `hbm` and `ici` write, are a pass.
  for (const char* text : {R"({"status": "pass", "mismatch_count": 0, "mismatches": []})", R"({"status": "ok"})",
                           R"({"config": "hbm3.yaml", "bandwidth_gbps": 12.5})"}) {
    INFO(text);
    CHECK(decide(exited(0), read_results_json(text, r), "", false, 60, true).status == "pass");
  }
}

TEST_CASE("exit 0 of a command that writes results without a readable results.json is an error") {
  TestRecord r;
  const ResultsFile none;
  const Verdict missing = decide(exited(0), none, "", false, 60, true);
  CHECK(missing.status == "error");
  CHECK(missing.message == "exited 0 but wrote no results.json");
  const Verdict garbage = decide(exited(0), read_results_json("\x01{{{", r), "", false, 60, true);
  CHECK(garbage.status == "error");
  CHECK(garbage.message == "exited 0 but its results.json is not a JSON object");
  CHECK(decide(exited(0), none, "", true, 60, true).status == "error");
  // A command that writes no results file passes on its exit code alone.
  CHECK(decide(exited(0), none, "", false, 60, false).status == "pass");
}

TEST_CASE("exit 1 with results that hold no error and no mismatch is a fail by the last stderr line") {
  // `mxcosim ici` on a fabric that deadlocks: exit 1, its results hold no error field.
  TestRecord r;
  const ResultsFile ici = read_results_json(R"({"collectives": [{"name": "allreduce", "deadlocked": true}]})", r);
  const Verdict v = decide(exited(1), ici,
                           "ring, 4 chips\nmxcosim ici: the fabric deadlocked at 1 of 1 sizes: messages in its "
                           "buffers and nothing left to move them\n\n",
                           false, 60, true);
  CHECK(v.status == "fail");
  CHECK(v.message ==
        "mxcosim ici: the fabric deadlocked at 1 of 1 sizes: messages in its buffers and nothing left to move them");
  CHECK(decide(exited(1), ici, "", false, 60, true).message == "failed without a mismatch record");
  CHECK(decide(exited(1), ici, "deadlock\n", true, 60, true).status == "fail");  // a mutation test: not a mismatch
}

TEST_CASE("reproduce commands are shell-quoted only where needed") {
  CHECK(shell_join({"mxcosim", "run", "--rows", "4", "--json", "/tmp/a b/r.json"}) ==
        "mxcosim run --rows 4 --json '/tmp/a b/r.json'");
  CHECK(shell_join({"echo", "it's", ""}) == "echo 'it'\\''s' ''");
}

TEST_CASE("exit 130 is a stop by a signal with the results' error or else the last stderr line") {
  TestRecord r;
  const ResultsFile stopped = read_results_json(R"({"status": "fail", "error": )"
                                                R"("stopped by a signal at 5000 ps, before the run finished: )"
                                                R"(3 of 9 instructions completed"})",
                                                r);
  const Verdict v = decide(exited(130), stopped, "mxcosim run: the last line\n", false, 60);
  CHECK(v.status == "error");
  CHECK(v.message == "stopped by a signal (exit 130): stopped by a signal at 5000 ps, before the run finished: 3 of 9 "
                     "instructions completed");
  const Verdict bare = decide(exited(130), ResultsFile{}, "mxcosim hbm: stopped\n\n", false, 60);
  CHECK(bare.status == "error");
  CHECK(bare.message == "stopped by a signal (exit 130): mxcosim hbm: stopped");
}
