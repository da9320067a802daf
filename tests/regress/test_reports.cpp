// Regressions against a baseline, report data from the database, JUnit XML
// and CSV: expectations computed by hand from the records below.
#include <pty.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <map>
#include <set>
#include <cstdio>
#include <sstream>

#include "regress/db_merge.h"
#include "regress/exports.h"
#include "regress/history_db.h"
#include "regress/junit_writer.h"
#include "regress/progress.h"
#include "regress/regression_check.h"
#include "regress/report_data.h"
#include "tests/temp_dir.h"

using namespace mxc::regress;
using mxc::testing::count_of;
using mxc::testing::TempDir;

namespace {
TestRecord rec(const std::string& id, const std::string& status, std::optional<std::int64_t> rtl,
               std::optional<std::int64_t> model, double wall) {
  TestRecord r;
  r.test_id = id;
  r.status = status;
  r.cycles_rtl = rtl;
  r.cycles_model = model;
  r.wall_seconds = wall;
  return r;
}
}  // namespace

TEST_CASE("model error and speed are derived from cycles and wall time") {
  CHECK(*model_error_pct(rec("a", "pass", 1000, 1050, 1)) == Approx(5.0));
  CHECK(*model_error_pct(rec("a", "pass", 1000, 980, 1)) == Approx(-2.0));
  CHECK_FALSE(model_error_pct(rec("a", "pass", 1000, std::nullopt, 1)));
  CHECK_FALSE(model_error_pct(rec("a", "pass", 0, 5, 1)));
  CHECK(*sim_speed(rec("a", "pass", 1000, std::nullopt, 0.5)) == Approx(2000.0));
  CHECK_FALSE(sim_speed(rec("a", "pass", 1000, std::nullopt, 0)));
}

TEST_CASE("regressions: status, error, cycles and speed beyond their thresholds") {
  const std::vector<TestRecord> base = {
      rec("status", "pass", 1000, 1000, 1.0), rec("error", "pass", 1000, 1010, 1.0),  // +1 %
      rec("error_ok", "pass", 1000, 1010, 1.0), rec("cycles", "pass", 1000, std::nullopt, 1.0),
      rec("cycles_ok", "pass", 1000, std::nullopt, 1.0), rec("speed", "pass", 4000, std::nullopt, 4.0),
      rec("speed_ok", "pass", 4000, std::nullopt, 4.0), rec("was_failing", "fail", 1000, std::nullopt, 1.0),
      rec("speed_short", "pass", 1000, std::nullopt, 0.02), rec("skipped", "pass", 1000, std::nullopt, 1.0)};
  std::vector<TestRecord> cur = {
      rec("status", "fail", 1000, 1000, 1.0),
      rec("error", "pass", 1000, 970, 1.0),      // |-3 %| > 1 % + 1 point
      rec("error_ok", "pass", 1000, 1019, 1.0),  // 1.9 % <= 2 %
      rec("cycles", "pass", 1021, std::nullopt, 1.021),  // > 2 % more cycles, same speed
      rec("cycles_ok", "pass", 1020, std::nullopt, 1.02),
      rec("speed", "pass", 4000, std::nullopt, 6.0),     // 667 < 750 cycles/s
      rec("speed_ok", "pass", 4000, std::nullopt, 5.2),  // 769 >= 750
      rec("was_failing", "fail", 1000, std::nullopt, 1.0), rec("new_test", "fail", 5, std::nullopt, 1.0),
      // 0.02 s to 0.05 s is the process starting slower, not the simulation: below
      // speed_min_seconds (2 s) speed is not compared.
      rec("speed_short", "pass", 1000, std::nullopt, 0.05),
      rec("skipped", "skipped", std::nullopt, std::nullopt, 0)};
  cur[0].message = "mismatch at C[0][1]";
  cur.back().message = "no RTL of a 16x16 array in this build";
  const auto regs = find_regressions(base, cur, Thresholds{});
  REQUIRE(regs.size() == 5);
  CHECK(regs[0].test_id == "status");
  CHECK(regs[0].what == "status");
  CHECK(regs[0].current == "fail: mismatch at C[0][1]");
  CHECK(regs[1].test_id == "error");
  CHECK(regs[1].what == "error");
  CHECK(regs[1].baseline == "1.00 %");
  CHECK(regs[1].current == "-3.00 %");
  CHECK(regs[2].test_id == "cycles");
  CHECK(regs[2].baseline == "1000");
  CHECK(regs[2].current == "1021");
  CHECK(regs[3].test_id == "speed");
  CHECK(regs[3].what == "speed");
  // 4000 cycles in 4 s, then in 6 s: fixed-point, never "1e+03".
  CHECK(regs[3].baseline == "1000 cycles/s");
  CHECK(regs[3].current == "667 cycles/s");
  CHECK(regs[4].test_id == "skipped");
  CHECK(regs[4].what == "status");
  CHECK(regs[4].current == "skipped: no RTL of a 16x16 array in this build");
  // The short test is compared once the threshold allows it.
  Thresholds any_length;
  any_length.speed_min_seconds = 0;
  const auto all = find_regressions(base, cur, any_length);
  CHECK(std::count_if(all.begin(), all.end(), [](const Regression& r) { return r.test_id == "speed_short"; }) == 1);
}

TEST_CASE("a test without RTL is held to its model's cycles and one with RTL to the RTL's alone") {
  const std::vector<TestRecord> base = {rec("model", "pass", std::nullopt, 1000, 1.0),
                                        rec("model_ok", "pass", std::nullopt, 1000, 1.0),
                                        rec("rtl", "pass", 1000, 1000, 1.0)};
  const std::vector<TestRecord> cur = {rec("model", "pass", std::nullopt, 1021, 1.0),     // > 2 %
                                       rec("model_ok", "pass", std::nullopt, 1020, 1.0),  // 2 %
                                       // RTL +2 %, model +3 %: the error 0.98 %, within 1 point
                                       rec("rtl", "pass", 1020, 1030, 1.0)};
  const auto regs = find_regressions(base, cur, Thresholds{});
  REQUIRE(regs.size() == 1);
  CHECK(regs[0].test_id == "model");
  CHECK(regs[0].what == "cycles");
  CHECK(regs[0].baseline == "1000");
  CHECK(regs[0].current == "1021");
}

namespace {
// Two runs of "smoke": r1 yesterday (all pass), r2 today with one failure,
// one crash and one size not built.
void fill(HistoryDb& db) {
  RunInfo k{.suite = "smoke", .rev = "r1", .label = "d1", .started_at = "2025-01-01T00:00:00Z"};
  const auto r1 = db.create_run(k);
  k.rev = "r2";
  k.label = "d2";
  k.started_at = "2025-01-02T00:00:00Z";
  k.host = "node<1>";
  const auto r2 = db.create_run(k);
  for (int i = 0; i < 4; ++i) {
    TestRecord t = rec("g/t" + std::to_string(i), "pass", 100, 110, 0.5);
    t.test_index = i;
    t.seed = std::to_string(i + 1);
    t.command = "mxcosim run --seed " + t.seed;
    db.record(r1, t);
    if (i == 1) {
      t.status = "fail";
      t.message = "data scoreboard C[0][5] value: expected 0x2a, got 0x2b & more <here>";
      t.mismatch_count = 1;
      t.cycles_model = 150;  // +50 %
    } else if (i == 2) {
      t.status = "error";
      t.message = "crash: SIGSEGV";
      t.cycles_rtl = t.cycles_model = std::nullopt;
    } else if (i == 3) {
      t.status = "skipped";
      t.message = "size not built: no RTL of a 16x16 array";
    }
    db.record(r2, t);
  }
  db.set_run_state(r1, "complete", "2025-01-01T01:00:00Z");
  db.set_run_state(r2, "complete", "2025-01-02T01:00:00Z");
}
}  // namespace

TEST_CASE("report data: newest run, previous run as baseline, trend per run") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  fill(db);
  const ReportData d = load_report_data(db, {});
  CHECK(d.run.rev == "r2");
  REQUIRE(d.baseline);
  CHECK(d.baseline->rev == "r1");
  CHECK(d.counts.pass == 1);
  CHECK(d.counts.fail == 1);
  CHECK(d.counts.error == 1);
  CHECK(d.counts.skipped == 1);
  // t1, t2 and t3 stopped passing: a test skipped now (its array size no longer built)
  // tests nothing, which a nightly must not read as a pass.
  REQUIRE(d.regressions.size() == 3);
  CHECK(d.regressions[0].test_id == "g/t1");
  CHECK(d.regressions[1].test_id == "g/t2");
  CHECK(d.regressions[2].test_id == "g/t3");
  CHECK(d.regressions[2].current == "skipped: size not built: no RTL of a 16x16 array");
  REQUIRE(d.trend_stats.size() == 2);
  CHECK(d.trend_stats[0].pass == 4);
  CHECK(*d.trend_stats[0].mean_abs_error_pct == Approx(10.0));
  CHECK(*d.trend_stats[1].mean_abs_error_pct == Approx((10.0 + 50.0 + 10.0) / 3));

  ReportSelection old;
  old.rev = "r1";
  const ReportData d1 = load_report_data(db, old);
  CHECK(d1.run.rev == "r1");
  CHECK_FALSE(d1.baseline);
  CHECK(d1.baseline_note == "no earlier run of this suite in the database");
  ReportSelection missing;
  missing.baseline_rev = "nope";
  // A baseline the user names must be there: "no baseline" would pass
  // --fail-on-regression for a typo.
  CHECK_THROWS_WITH(load_report_data(db, missing), "--baseline 'nope': results database '" + (dir / "r.db") +
                                                       "' has no other run of suite 'smoke' at that revision");
  ReportSelection named;
  named.baseline_rev = "r1";
  CHECK(load_report_data(db, named).baseline->rev == "r1");
  // As git takes a revision: the whole hash, or its first 4 or more characters (reports
  // print 12), never fewer, nor more than the whole.
  const std::string full = "0123456789abcdef0123456789abcdef01234567";
  CHECK(rev_matches(full, full));
  CHECK(rev_matches(full, full.substr(0, 12)));
  CHECK(rev_matches(full, "0123"));
  CHECK_FALSE(rev_matches(full, "012"));
  CHECK_FALSE(rev_matches(full, "0123x"));
  CHECK_FALSE(rev_matches("r1", "r12"));
  ReportSelection bad;
  bad.suite = "nightly";
  CHECK_THROWS_WITH(load_report_data(db, bad), "results database '" + (dir / "r.db") + "' has no run of suite 'nightly'");
  // The selection that found nothing is named.
  ReportSelection no_id;
  no_id.run_id = 999;
  CHECK_THROWS_WITH(load_report_data(db, no_id), "results database '" + (dir / "r.db") + "' has no run with id 999");
  ReportSelection no_label;
  no_label.label = "nosuch";
  CHECK_THROWS_WITH(load_report_data(db, no_label),
                    "results database '" + (dir / "r.db") + "' has no run labelled 'nosuch'");

  const auto j = to_json(d);
  CHECK(j["summary"]["total"] == 4);
  CHECK(j["tests"][1]["error_pct"].get<double>() == Approx(50.0));
  CHECK(j["tests"][2]["cycles_rtl"].is_null());
  CHECK(j["trend"].size() == 2);
}

namespace {
// The keys of `j` (an object), an array's written "key[]", and those of each object or first array element in it.
void collect_keys(const nlohmann::json& j, std::set<std::string>& keys) {
  for (const auto& [key, value] : j.items()) {
    keys.insert(value.is_array() ? key + "[]" : key);
    if (value.is_object()) collect_keys(value, keys);
    if (value.is_array() && !value.empty() && value[0].is_object()) collect_keys(value[0], keys);
  }
}
}  // namespace

TEST_CASE("docs/regress.md documents every field of the JSON export") {
  // A run with a baseline, a regression, a test with every measurement and one not run.
  TempDir dir;
  HistoryDb db(dir / "r.db");
  const auto r1 = db.create_run(RunInfo{.suite = "s", .rev = "r1", .label = "d1"});
  db.record(r1, rec("g/a", "pass", 100, 100, 1.0));
  db.set_run_state(r1, "complete", "2025-01-01T01:00:00Z");
  const auto r2 = db.create_run(RunInfo{.suite = "s", .rev = "r2", .label = "d2"});
  db.add_to_plan(r2, {"g/a", "g/b"}, "");
  TestRecord a = rec("g/a", "fail", 100, 110, 1.0);
  a.instructions = 5;
  a.mismatch_count = 1;
  a.sim_time_ns = 10;
  a.utilisation = 0.5;
  a.bandwidth_gbps = 2;
  a.exit_code = 1;
  db.record(r2, a);
  db.set_run_state(r2, "interrupted", "2025-01-02T01:00:00Z");
  const auto j = to_json(load_report_data(db, {}));
  REQUIRE(j["regressions"].size() == 1);
  REQUIRE(j["tests"].size() == 2);
  std::set<std::string> keys;
  collect_keys(j, keys);
  const std::string docs = mxc::testing::read_text(MXCOSIM_SOURCE_DIR "/docs/regress.md");
  const auto from = docs.find("### The JSON export");
  REQUIRE(from != std::string::npos);
  const std::string section = docs.substr(from, docs.find("\n## ", from) - from);
  for (const auto& key : keys) {
    INFO(key);
    CHECK(section.find("`" + key + "`") != std::string::npos);
  }
  CHECK(keys.size() > 40);
}

TEST_CASE("report data: planned tests that never ran regress in plan order, complete runs are baselines, revisions by prefix") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  const auto make_run = [&](const std::string& rev, const std::string& day, const std::string& state,
                            const std::vector<std::string>& results) {
    RunInfo k{.suite = "s", .rev = rev, .label = day, .started_at = "2025-01-0" + day + "T00:00:00Z"};
    const auto id = db.create_run(k);
    db.add_to_plan(id, {"t-m", "t-a", "t-z"}, "");  // not alphabetical
    for (const auto& t : results) db.record(id, rec(t, "pass", 100, 100, 1));
    db.set_run_state(id, state, state == "complete" ? k.started_at : "");
    return id;
  };
  const auto night1 = make_run("aaaa1111", "1", "complete", {"t-m", "t-a", "t-z"});
  const auto night2 = make_run("aaaa2222", "2", "interrupted", {"t-z"});
  // The interrupted night: the two tests it never ran passed the night before,
  // and test nothing now (they used to be no regression at all).
  ReportSelection second;
  second.run_id = night2;
  const ReportData d2 = load_report_data(db, second);
  CHECK(d2.not_run == std::vector<std::string>{"t-m", "t-a"});
  REQUIRE(d2.regressions.size() == 2);
  CHECK(d2.regressions[0].test_id == "t-m");
  CHECK(d2.regressions[0].what == "status");
  CHECK(d2.regressions[0].baseline == "pass");
  CHECK(d2.regressions[0].current == "not run");
  CHECK(d2.regressions[1].test_id == "t-a");
  // The next night's baseline is the last complete one, not the interrupted one
  // whose missing tests would go uncompared.
  const auto night3 = make_run("bbbb3333", "3", "complete", {"t-m", "t-a", "t-z"});
  const ReportData d3 = load_report_data(db, {});
  CHECK(d3.run.run_id == night3);
  REQUIRE(d3.baseline);
  CHECK(d3.baseline->run_id == night1);
  CHECK(d3.regressions.empty());
  // A revision by its start, as --baseline takes it; one start naming two is refused.
  ReportSelection by_prefix;
  by_prefix.rev = "aaaa2";
  CHECK(load_report_data(db, by_prefix).run.run_id == night2);
  ReportSelection ambiguous;
  ambiguous.rev = "aaaa";
  CHECK_THROWS_WITH(load_report_data(db, ambiguous),
                    "--rev 'aaaa' names 2 revisions (aaaa1111, aaaa2222): give more of the hash");
  ReportSelection ambiguous_base;
  ambiguous_base.baseline_rev = "aaaa";
  CHECK_THROWS_WITH(load_report_data(db, ambiguous_base),
                    "--baseline 'aaaa' names 2 revisions (aaaa1111, aaaa2222): give more of the hash");
  CHECK_THROWS_WITH(has_run_at(db, "s", "aaaa"),
                    "--baseline 'aaaa' names 2 revisions (aaaa1111, aaaa2222): give more of the hash");
  // The run a regress command continues is not a baseline for it.
  CHECK(has_run_at(db, "s", "aaaa2222"));
  CHECK_FALSE(has_run_at(db, "s", "aaaa2222", night2));
  CHECK(has_run_at(db, "s", "aaaa", night2));  // one revision left
}

namespace {
// A run of suite s at `rev` started on day `day` of January 2025, its plan `plan` and its
// results `results` (id: status, all with the same cycles).
std::int64_t suite_run(HistoryDb& db, const std::string& rev, int day, const std::string& state,
                       const std::vector<std::string>& plan, const std::map<std::string, std::string>& results) {
  const std::string date = "2025-01-" + std::string(day < 10 ? "0" : "") + std::to_string(day);
  const auto id = db.create_run(RunInfo{.suite = "s", .rev = rev, .label = date, .started_at = date + "T00:00:00Z"});
  db.add_to_plan(id, plan, "");
  for (const auto& [test, status] : results) db.record(id, rec(test, status, 100, 100, 1));
  db.set_run_state(id, state, date + "T01:00:00Z");
  return id;
}
}  // namespace

TEST_CASE("the baseline is an earlier run with results for the run's tests and the report counts them") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  const std::vector<std::string> all{"a", "b", "c", "d"};
  const std::map<std::string, std::string> passed{{"a", "pass"}, {"b", "pass"}, {"c", "pass"}, {"d", "pass"}};
  const auto full = suite_run(db, "r1", 1, "complete", all, passed);
  // A later `--tag quick` run, complete, of test a alone.
  const auto quick = suite_run(db, "r1", 2, "complete", {"a"}, {{"a", "pass"}});
  // Tonight b fails: compared with the quick run alone it went unflagged.
  auto now = passed;
  now["b"] = "fail";
  const auto night = suite_run(db, "r2", 3, "complete", all, now);
  ReportSelection sel;
  sel.run_id = night;
  const ReportData d = load_report_data(db, sel);
  REQUIRE(d.baseline);
  CHECK(d.baseline->run_id == full);
  CHECK(d.compared == 4);
  REQUIRE(d.regressions.size() == 1);
  CHECK(d.regressions[0].test_id == "b");
  CHECK(to_json(d)["baseline_compared"] == 4);

  // A quick run after it is compared with the newest run that has its test: the night.
  const auto quick2 = suite_run(db, "r3", 4, "complete", {"a"}, {{"a", "pass"}});
  sel.run_id = quick2;
  const ReportData q = load_report_data(db, sel);
  REQUIRE(q.baseline);
  CHECK(q.baseline->run_id == night);
  CHECK(q.compared == 1);
  // No earlier run with a result for any of its tests (a new test): no baseline, said so.
  const auto fresh = suite_run(db, "r3", 5, "complete", {"e"}, {{"e", "pass"}});
  sel.run_id = fresh;
  const ReportData f = load_report_data(db, sel);
  CHECK_FALSE(f.baseline);
  CHECK(f.baseline_note == "no earlier run of this suite has a result for any of this run's tests");
  (void)quick;
}

TEST_CASE("a baseline named by revision is its run that covers the run's tests and a complete one first") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  const std::vector<std::string> all{"a", "b", "c"};
  const std::map<std::string, std::string> passed{{"a", "pass"}, {"b", "pass"}, {"c", "pass"}};
  const auto full = suite_run(db, "base", 1, "complete", all, passed);
  suite_run(db, "base", 2, "complete", {"a"}, {{"a", "pass"}});  // --tag quick
  suite_run(db, "base", 3, "interrupted", all, {});              // stopped before any test
  auto now = passed;
  now["c"] = "fail";
  const auto night = suite_run(db, "next", 4, "complete", all, now);
  ReportSelection sel;
  sel.run_id = night;
  sel.baseline_rev = "base";
  const ReportData d = load_report_data(db, sel);
  REQUIRE(d.baseline);
  CHECK(d.baseline->run_id == full);
  CHECK(d.compared == 3);
  REQUIRE(d.regressions.size() == 1);
  CHECK(d.regressions[0].test_id == "c");

  // Of two runs at a revision that both have every test, the complete one.
  const auto done = suite_run(db, "two", 5, "complete", all, passed);
  suite_run(db, "two", 6, "interrupted", {"a", "b", "c", "x"}, passed);
  sel.baseline_rev = "two";
  CHECK(load_report_data(db, sel).baseline->run_id == done);

  // A revision whose runs share no test with the run is still the baseline asked for, with a warning.
  const auto other = suite_run(db, "other", 7, "complete", {"z"}, {{"z", "pass"}});
  sel.baseline_rev = "other";
  const ReportData none = load_report_data(db, sel);
  REQUIRE(none.baseline);
  CHECK(none.baseline->run_id == other);
  CHECK(none.compared == 0);
  CHECK(none.regressions.empty());
  CHECK(none.baseline_note == "no test of this run has a result in the baseline: nothing was compared");
  CHECK(to_json(none)["baseline_compared"] == 0);
}

TEST_CASE("JUnit XML: counts, per-test properties, failure with mismatch and reproduce command") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  fill(db);
  std::ostringstream out;
  write_junit(load_report_data(db, {}), out);
  const std::string x = out.str();
  // <testsuites> as the Jenkins xUnit schema has it (no `skipped`); <testsuite> counts the skipped test.
  CHECK(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mxcosim regress\" tests=\"4\" "
                "failures=\"1\" errors=\"1\" time=\"2.000\">\n  <testsuite name=\"smoke\" tests=\"4\" failures=\"1\" "
                "errors=\"1\" skipped=\"1\" time=\"2.000\" timestamp=\"2025-01-02T00:00:00\"",
                0) == 0);
  CHECK(count_of(x, "<testcase ") == 4);
  CHECK(count_of(x, "<failure ") == 1);
  CHECK(count_of(x, "<error ") == 1);
  CHECK(count_of(x, "<skipped ") == 1);
  CHECK(x.find("hostname=\"node&lt;1&gt;\"") != std::string::npos);
  CHECK(x.find("<testcase classname=\"smoke.g\" name=\"t1\" time=\"0.500\">") != std::string::npos);
  CHECK(x.find("<property name=\"seed\" value=\"2\"/>") != std::string::npos);
  CHECK(x.find("<property name=\"cycles\" value=\"100\"/>") != std::string::npos);
  CHECK(x.find("<failure message=\"data scoreboard C[0][5] value: expected 0x2a, got 0x2b &amp; more &lt;here&gt;\" "
               "type=\"mismatch\">") != std::string::npos);
  CHECK(x.find("reproduce: mxcosim run --seed 2") != std::string::npos);
  CHECK(x.find("<error message=\"crash: SIGSEGV\" type=\"run\">") != std::string::npos);
  CHECK(x.find("<property name=\"cycles\" value=\"n/a\"/>") != std::string::npos);
  CHECK(xml_escape(std::string("a\x01" "b\"'")) == "a?b&quot;&apos;");
  // Tab, newline and carriage return are kept: raw in content, as references in an attribute, where a
  // parser would read them raw as spaces.
  CHECK(xml_escape("a\tb\nc\rd") == "a\tb\nc\rd");
  CHECK(xml_escape("a\tb\nc\rd", true) == "a&#9;b&#10;c&#13;d");
  // The file is declared UTF-8: a byte that is not (from a file name or a test's output) becomes
  // U+FFFD, characters that are stay as they are.
  CHECK(xml_escape("x\xffy \xc2\xb5s \xe2\x82" "<") == "x\xef\xbf\xbdy \xc2\xb5s \xef\xbf\xbd\xef\xbf\xbd&lt;");
  CHECK(xml_escape("a\xef\xbf\xbf" "b\xef\xbf\xbe" "c\xef\xbf\xbd") == "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd");
}

TEST_CASE("JUnit XML: a failure without a mismatch is not typed as one") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  const auto run = db.create_run(RunInfo{.suite = "s", .rev = "r1", .label = "d1"});
  TestRecord t = rec("ici", "fail", std::nullopt, std::nullopt, 1.0);
  t.message = "mxcosim ici: the fabric deadlocked at 1 of 1 sizes";
  db.record(run, t);
  t = rec("found", "fail", 10, std::nullopt, 1.0);
  t.message = "sb C value: expected 1, got 0";
  t.mismatch_count = 2;
  db.record(run, t);
  std::ostringstream out;
  write_junit(load_report_data(db, {}), out);
  const std::string x = out.str();
  CHECK(x.find("<failure message=\"mxcosim ici: the fabric deadlocked at 1 of 1 sizes\" type=\"failure\">") !=
        std::string::npos);
  CHECK(x.find("<failure message=\"sb C value: expected 1, got 0\" type=\"mismatch\">") != std::string::npos);
  CHECK(count_of(x, "type=\"mismatch\"") == 1);
}

TEST_CASE("JUnit XML: the planned tests an interrupted run never finished are errors") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  RunInfo k{.suite = "night", .rev = "r1", .label = "d1"};
  const auto run = db.create_run(k);
  db.add_to_plan(run, {"g/a", "g/b", "g/c"}, "");
  db.record(run, rec("g/a", "pass", 100, 100, 1.0));
  db.set_run_state(run, "interrupted", "2025-01-01T01:00:00Z");
  const ReportData d = load_report_data(db, {});
  CHECK(d.not_run == std::vector<std::string>{"g/b", "g/c"});
  std::ostringstream out;
  write_junit(d, out);
  const std::string x = out.str();
  // Two tests with no result: the file says 3 tests, 2 errors, not 1 test that passed.
  CHECK(x.find("<testsuites name=\"mxcosim regress\" tests=\"3\" failures=\"0\" errors=\"2\" time=\"1.000\">") !=
        std::string::npos);
  CHECK(count_of(x, "<testcase ") == 3);
  CHECK(count_of(x, "<error message=\"not run: the regression was interrupted before it\" type=\"not-run\">") == 2);
  CHECK(x.find("<testcase classname=\"night.g\" name=\"c\" time=\"0.000\">") != std::string::npos);
  CHECK(x.find("<property name=\"state\" value=\"interrupted\"/>") != std::string::npos);
  // Once every planned test has a result there is nothing more to say.
  db.record(run, rec("g/b", "pass", 100, 100, 1.0));
  db.record(run, rec("g/c", "pass", 100, 100, 1.0));
  CHECK(load_report_data(db, {}).not_run.empty());
}

TEST_CASE("CSV export: one row per test, quoted where needed, empty for null") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  fill(db);
  std::ostringstream out;
  write_csv(load_report_data(db, {}), out);
  std::istringstream in(out.str());
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  REQUIRE(lines.size() == 5);
  CHECK(lines[1] == "smoke,r2,d2,g/t0,pass,,1,100,110,10,0.5,200,,,,mxcosim run --seed 1");
  CHECK(lines[3] == "smoke,r2,d2,g/t2,error,crash: SIGSEGV,3,,,,0.5,,,,,mxcosim run --seed 3");
  CHECK(csv_field("a,\"b\"") == "\"a,\"\"b\"\"\"");
}

TEST_CASE("CSV export cleans text as the JSON and XML files do: no invalid UTF-8, no control bytes") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  RunInfo k{.suite = "s", .rev = "r", .label = "l"};
  const auto run = db.create_run(k);
  TestRecord t = rec("g/t\xff", "error", std::nullopt, std::nullopt, 1);
  t.message = "usage error: bad \xc3( byte; \x1b[31mred\x1b[0m \xc2\xb5s";
  t.command = "mxcosim run\x01";
  db.record(run, t);
  std::ostringstream out;
  write_csv(load_report_data(db, {}), out);
  const std::string csv = out.str();
  const std::string row = csv.substr(csv.find('\n') + 1);
  // U+FFFD for each ill-formed sequence, '?' for each control byte, valid
  // UTF-8 (µ) kept.
  CHECK(row == "s,r,l,g/t\xef\xbf\xbd,error,usage error: bad \xef\xbf\xbd( byte; ?[31mred?[0m \xc2\xb5s,,,,,1,,,,,"
               "mxcosim run?\n");
  CHECK(csv_field("a\x02,b") == "\"a?,b\"");
  CHECK(csv_field("tab\tand\nline") == "\"tab\tand\nline\"");
  // What a spreadsheet takes for a formula stays text.
  CHECK(csv_field("=HYPERLINK(\"x\",\"y\")") == "\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\"");
  CHECK(csv_field("+1") == "'+1");
  CHECK(csv_field("--rows must be >= 1") == "'--rows must be >= 1");
  CHECK(csv_field("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_field("a=b") == "a=b");
}

TEST_CASE("progress lines show a test's text whole and cleaned, as the report files do") {
  std::FILE* out = std::tmpfile();
  REQUIRE(out);
  {
    Progress p(1, true, out);  // not a terminal: one line per test
    p.test_finished(std::string("g/\0x", 4), "error", std::string("exit code 5: before\0after \x1b[0m", 30), 1);
  }
  std::rewind(out);
  std::string text(4096, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), out));
  std::fclose(out);
  CHECK(text.rfind("error   g/?x (1.00 s)  exit code 5: before?after ?[0m\n", 0) == 0);
}

namespace {
// What `body` prints through a Progress writing to a file (not a terminal).
template <class Body>
std::string progress_text(Body body) {
  std::FILE* out = std::tmpfile();
  REQUIRE(out);
  body(out);
  std::rewind(out);
  std::string text(1 << 16, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), out));
  std::fclose(out);
  return text;
}
}  // namespace

TEST_CASE("progress starts with a line naming the tests to run and -j and the folder") {
  Counts earlier;
  earlier.pass = 2;
  const std::string text = progress_text([&](std::FILE* out) {
    Progress p(5, true, out, earlier);
    p.start(3, 4, "/o/ut");
  });
  CHECK(text == "regress: 3 tests to run (2 done earlier), -j 4, out /o/ut\n");
  CHECK(progress_text([](std::FILE* out) { Progress(1, true, out).start(1, 1, "o"); }) ==
        "regress: 1 test to run, -j 1, out o\n");
  CHECK(progress_text([](std::FILE* out) { Progress(1, false, out).start(1, 1, "o"); }).empty());
}

TEST_CASE("in a log a heartbeat names each running test and how long it has run once per interval") {
  using namespace std::chrono_literals;
  const auto t0 = Progress::Clock::now();
  const std::string text = progress_text([&](std::FILE* out) {
    Progress p(3, true, out);
    p.set_heartbeat_seconds(300);
    p.test_started("slow/b", t0);
    p.test_started("fast/a", t0 + 100s);
    p.tick(t0 + 299s);  // not yet
    p.tick(t0 + 301s);  // b has run 5:01, a 3:21
    p.tick(t0 + 400s);  // within the interval of the last one
    p.test_finished("fast/a", "pass", "", 300);
    p.tick(t0 + 3901s);  // b alone, past an hour
  });
  // The heartbeat's elapsed time is the runner's own: taken from the Progress's start, near t0.
  const auto lines = count_of(text, "still running after ");
  CHECK(lines == 2);
  CHECK(text.find(" done; running: fast/a (3:21), slow/b (5:01)\n") != std::string::npos);
  CHECK(text.find(" done; running: slow/b (1:05:01)\n") != std::string::npos);
  CHECK(text.find("1/3 done; running: slow/b") != std::string::npos);
  // Nothing running: no heartbeat.
  CHECK(progress_text([&](std::FILE* out) { Progress(1, true, out).tick(t0 + 1000s); }).empty());
  CHECK(progress_text([&](std::FILE* out) {
          Progress p(1, false, out);
          p.test_started("a", t0);
          p.tick(t0 + 1000s);
        }).empty());
}

TEST_CASE("on a terminal the line is redrawn about once a second with the elapsed time and the running tests") {
  using namespace std::chrono_literals;
  int master = -1, slave = -1;
  REQUIRE(openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
  winsize ws{};
  ws.ws_col = 200;
  ws.ws_row = 50;
  REQUIRE(ioctl(slave, TIOCSWINSZ, &ws) == 0);
  std::FILE* out = fdopen(slave, "w");
  REQUIRE(out);
  {
    Progress p(4, true, out);
    p.start(4, 2, "o");
    const auto t0 = Progress::Clock::now();
    p.test_started("g/a", t0);
    p.test_started("g/b", t0);
    p.tick(t0 + 500ms);  // too soon
    p.tick(t0 + 2s);
  }
  std::fclose(out);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(master, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(master);
  INFO(text);
  // The start line, the first bar at 0:00, then one redraw with both tests running.
  CHECK(text.find("regress: 4 tests to run, -j 2, out o") != std::string::npos);
  CHECK(count_of(text, "\r\033[K[") == 2);
  CHECK(text.find("0/4  pass 0  fail 0  error 0  skip 0  ETA --:--  0:02  running: g/a, g/b") != std::string::npos);
}

TEST_CASE("durations read minutes and seconds and hours from an hour on") {
  CHECK(Progress::duration(0) == "0:00");
  CHECK(Progress::duration(65.4) == "1:05");
  CHECK(Progress::duration(3599.6) == "1:00:00");
  CHECK(Progress::duration(7384) == "2:03:04");
}

TEST_CASE("console text shows every control character as '?' where the report files keep lines") {
  CHECK(console_text("a\rb\nc\td\x1b[2Je\x7f") == "a?b?c?d?[2Je?");
  CHECK(console_text("csi\xc2\x9b" "2J \xc2\xb5s") == "csi?2J \xc2\xb5s");  // C1 CSI gone, µ kept
  CHECK(console_text(std::string("nul\0x", 5)) == "nul?x");
  CHECK(clean_text("a\rb\nc") == "a\rb\nc");  // the report files keep lines
}

TEST_CASE("the ETA counts only the tests this process finished") {
  Counts c;
  c.pass = 9;
  // A resumed run: 8 results were earlier, 1 test took this process 1 s, 2 are left: 2 s.
  CHECK(Progress::line(c, 11, 1.0, 1).find("9/11") != std::string::npos);
  CHECK(Progress::line(c, 11, 1.0, 1).find("ETA 0:02") != std::string::npos);
  c.pass = 3;
  // 20 s for 2 tests here, 7 left: 70 s (not 20 / 3 x 7).
  CHECK(Progress::line(c, 10, 20.0, 2).find("ETA 1:10") != std::string::npos);
  // Nothing finished here yet: no estimate.
  CHECK(Progress::line(c, 10, 20.0, 0).find("ETA --:--") != std::string::npos);
}

TEST_CASE("a test that did not run names the shard never merged, or else why its run stopped") {
  TempDir dir;
  {
    // Shard 1/2 of the suite b, a, d, c (not alphabetical): b and d; it ran b and was interrupted.
    HistoryDb s1(dir / "s1.db");
    RunInfo k{.suite = "s", .rev = "r1", .label = "slurm", .shard = "1/2"};
    const auto id = s1.create_run(k);
    s1.add_to_plan(id, {"g/b", "g/d"}, "1/2");
    s1.add_suite_tests(id, {"g/b", "g/a", "g/d", "g/c"});
    s1.record(id, rec("g/b", "pass", 100, 100, 1.0));
    s1.set_run_state(id, "interrupted", "2025-01-01T01:00:00Z");
  }
  HistoryDb all(dir / "all.db");
  merge_databases(all, {dir / "s1.db"});  // shard 2/2 (a and c) never arrives
  const ReportData d = load_report_data(all, {});
  REQUIRE(d.not_run == std::vector<std::string>{"g/a", "g/d", "g/c"});
  const std::string never = "not run: shard 2/2 was never merged";
  const std::string stopped = "not run: the regression was interrupted before it";
  CHECK(not_run_reason(d, 0) == never);
  CHECK(not_run_reason(d, 1) == stopped);
  CHECK(not_run_reason(d, 2) == never);
  std::ostringstream xml;
  write_junit(d, xml);
  CHECK(count_of(xml.str(), "<error message=\"" + never + "\" type=\"not-run\">") == 2);
  CHECK(count_of(xml.str(), "<error message=\"" + stopped + "\" type=\"not-run\">") == 1);
  CHECK(to_json(d)["tests"][1]["message"] == never);
  std::ostringstream csv;
  write_csv(d, csv);
  CHECK(csv.str().find("s,r1,slurm,g/c,error," + never + ",") != std::string::npos);
}

TEST_CASE("a report taken while a run is in progress says its tests without a result are not run yet") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  const auto id = db.create_run(RunInfo{.suite = "s", .rev = "r1", .label = "night"});
  db.add_to_plan(id, {"g/a", "g/b"}, "");
  db.record(id, rec("g/a", "pass", 100, 100, 1.0));
  REQUIRE(db.run(id)->state == "running");
  const ReportData d = load_report_data(db, {});
  REQUIRE(d.not_run == std::vector<std::string>{"g/b"});
  const std::string why = "not run yet: the run is in progress (or its runner was killed)";
  CHECK(not_run_reason(d, 0) == why);
  std::ostringstream xml;
  write_junit(d, xml);
  CHECK(count_of(xml.str(), "<error message=\"" + why + "\" type=\"not-run\">") == 1);
}

TEST_CASE("JUnit XML: a status the database should not hold is an error naming it, as the counts have it") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  RunInfo k{.suite = "s", .rev = "r1", .label = "d1"};
  const auto run = db.create_run(k);
  db.record(run, rec("g/a", "pass", 100, 100, 1.0));
  TestRecord odd = rec("g/b", "flaky", 100, 100, 1.0);
  odd.message = "from another tool";
  db.record(run, odd);
  const ReportData d = load_report_data(db, {});
  CHECK(d.counts.error == 1);
  std::ostringstream out;
  write_junit(d, out);
  const std::string x = out.str();
  CHECK(x.find("errors=\"1\"") != std::string::npos);
  CHECK(count_of(x, "<error ") == 1);
  CHECK(x.find("<error message=\"unknown status &apos;flaky&apos;: from another tool\" type=\"unknown-status\">") !=
        std::string::npos);
}

TEST_CASE("JUnit XML: a test whose suite sets no seed has the seed its results file recorded") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  RunInfo k{.suite = "s", .rev = "r1", .label = "d1"};
  const auto run = db.create_run(k);
  TestRecord from_file = rec("g/a", "pass", 100, 100, 1.0);
  from_file.results_json = R"({"status":"pass","seed":1,"cycles":{"rtl":100}})";
  db.record(run, from_file);
  TestRecord suite_seed = rec("g/b", "pass", 100, 100, 1.0);
  suite_seed.seed = "7";
  suite_seed.results_json = R"({"status":"pass","seed":7})";
  db.record(run, suite_seed);
  TestRecord none = rec("g/c", "pass", 100, 100, 1.0);
  none.results_json = R"({"status":"pass"})";
  db.record(run, none);
  std::ostringstream out;
  write_junit(load_report_data(db, {}), out);
  const std::string x = out.str();
  const auto seed_of = [&](const std::string& name) {
    const auto at = x.find("name=\"" + name + "\"");
    const auto p = x.find("<property name=\"seed\" value=\"", at);
    return x.substr(p + 29, x.find('"', p + 29) - p - 29);
  };
  CHECK(seed_of("a") == "1");
  CHECK(seed_of("b") == "7");
  CHECK(seed_of("c") == "n/a");
}

namespace {
// Run "night" of suite g planning g/a, g/b, g/c, interrupted after g/a
// passed, started after a complete run where all three passed.
ReportData interrupted_night(HistoryDb& db) {
  RunInfo k{.suite = "night", .rev = "r0", .label = "d0", .started_at = "2025-01-01T00:00:00Z"};
  const auto before = db.create_run(k);
  for (const char* id : {"g/a", "g/b", "g/c"}) db.record(before, rec(id, "pass", 100, 100, 1.0));
  db.set_run_state(before, "complete", "2025-01-01T01:00:00Z");
  k.rev = "r1";
  k.label = "d1";
  k.started_at = "2025-01-02T00:00:00Z";
  const auto run = db.create_run(k);
  db.add_to_plan(run, {"g/a", "g/b", "g/c"}, "");
  db.record(run, rec("g/a", "pass", 100, 100, 1.0));
  db.set_run_state(run, "interrupted", "2025-01-02T01:00:00Z");
  return load_report_data(db, {});
}
}  // namespace

TEST_CASE("JSON export: planned tests that never ran are errors in the summary, the tests and the trend") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  const auto j = to_json(interrupted_night(db));
  // 3 planned, 1 passed, 2 never ran: as the JUnit file counts them.
  CHECK(j["summary"]["total"] == 3);
  CHECK(j["summary"]["pass"] == 1);
  CHECK(j["summary"]["error"] == 2);
  CHECK(j["summary"]["not_run"] == 2);
  REQUIRE(j["tests"].size() == 3);
  CHECK(j["tests"][0]["not_run"] == false);
  CHECK(j["tests"][1]["id"] == "g/b");
  CHECK(j["tests"][1]["status"] == "error");
  CHECK(j["tests"][1]["message"] == "not run: the regression was interrupted before it");
  CHECK(j["tests"][1]["not_run"] == true);
  CHECK(j["tests"][1]["cycles_rtl"].is_null());
  CHECK(j["tests"][2]["id"] == "g/c");
  // The trend's pass rate is pass / (pass + fail + error): 3 of 3 the night before, 1 of 3 now.
  REQUIRE(j["trend"].size() == 2);
  CHECK(j["trend"][0]["pass"] == 3);
  CHECK(j["trend"][0]["error"] == 0);
  CHECK(j["trend"][1]["pass"] == 1);
  CHECK(j["trend"][1]["error"] == 2);
  CHECK(j["trend"][1]["not_run"] == 2);
}

TEST_CASE("CSV export: planned tests that never ran are rows, errors saying why") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  std::ostringstream out;
  write_csv(interrupted_night(db), out);
  std::istringstream in(out.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 4);
  CHECK(lines[2] == "night,r1,d1,g/b,error,not run: the regression was interrupted before it,,,,,,,,,,");
  CHECK(lines[3] == "night,r1,d1,g/c,error,not run: the regression was interrupted before it,,,,,,,,,,");
}

TEST_CASE("report totals: tests that never ran are errors, in the JSON summary and the JUnit counts alike") {
  // 7 results (2 pass, 1 fail, 1 error, 3 skipped) and 4 planned tests without one: 11 tests, 1 + 4 errors.
  const ReportTotals n = report_totals(Counts{2, 1, 1, 3}, 7, 4);
  CHECK(n.total == 11);
  CHECK(n.pass == 2);
  CHECK(n.fail == 1);
  CHECK(n.error == 5);
  CHECK(n.skipped == 3);
  CHECK(n.not_run == 4);

  TempDir dir;
  HistoryDb db(dir / "r.db");
  const ReportData d = interrupted_night(db);
  const ReportTotals t = report_totals(d);
  CHECK(t.total == 3);
  CHECK(t.pass == 1);
  CHECK(t.fail == 0);
  CHECK(t.error == 2);
  CHECK(t.skipped == 0);
  CHECK(t.not_run == 2);
  std::ostringstream out;
  write_junit(d, out);
  CHECK(out.str().find("<testsuite name=\"night\" tests=\"3\" failures=\"0\" errors=\"2\" skipped=\"0\"") !=
        std::string::npos);
}

TEST_CASE("JSON export: a test that never ran has every field of a row that ran, as an error saying why") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  const auto j = to_json(interrupted_night(db));
  REQUIRE(j["tests"].size() == 3);
  // wall_seconds 0 and attempts 0: it took no time and made no attempt; the rest null or empty.
  const nlohmann::json expected = {{"id", "g/b"},
                                   {"index", nullptr},
                                   {"status", "error"},
                                   {"message", "not run: the regression was interrupted before it"},
                                   {"seed", ""},
                                   {"tags", ""},
                                   {"command", ""},
                                   {"exit_code", nullptr},
                                   {"wall_seconds", nullptr},  // a measurement, null as the CSV's field is empty
                                   {"cycles_rtl", nullptr},
                                   {"cycles_model", nullptr},
                                   {"error_pct", nullptr},
                                   {"speed_cps", nullptr},
                                   {"instructions", nullptr},
                                   {"mismatch_count", nullptr},
                                   {"sim_time_ns", nullptr},
                                   {"utilisation", nullptr},
                                   {"bandwidth_gbps", nullptr},
                                   {"attempts", 0},
                                   {"finished_at", ""},
                                   {"not_run", true}};
  CHECK(j["tests"][1] == expected);
  // The row of g/a, which ran, has the same keys.
  std::vector<std::string> ran, not_run;
  for (const auto& [key, value] : j["tests"][0].items()) ran.push_back(key);
  for (const auto& [key, value] : j["tests"][1].items()) not_run.push_back(key);
  CHECK(ran == not_run);
}

TEST_CASE("CSV, JSON and JUnit XML give the same seed: the suite's, else the one the results file recorded") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  RunInfo k{.suite = "s", .rev = "r1", .label = "d1"};
  const auto run = db.create_run(k);
  TestRecord from_file = rec("g/a", "pass", 100, 100, 1.0);  // its suite sets no seed
  from_file.test_index = 0;
  from_file.results_json = R"({"status":"pass","seed":42,"cycles":{"rtl":100}})";
  db.record(run, from_file);
  TestRecord suite_seed = rec("g/b", "pass", 100, 100, 1.0);
  suite_seed.test_index = 1;
  suite_seed.seed = "7";
  suite_seed.results_json = R"({"status":"pass","seed":7})";
  db.record(run, suite_seed);
  TestRecord none = rec("g/c", "pass", 100, 100, 1.0);
  none.test_index = 2;
  none.results_json = R"({"status":"pass"})";
  db.record(run, none);
  const ReportData d = load_report_data(db, {});

  std::ostringstream csv;
  write_csv(d, csv);
  std::istringstream in(csv.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 4);
  // error 0 %, 1 s, 100 cycles / 1 s; the seed is the 7th column.
  CHECK(lines[1] == "s,r1,d1,g/a,pass,,42,100,100,0,1,100,,,,");
  CHECK(lines[2] == "s,r1,d1,g/b,pass,,7,100,100,0,1,100,,,,");
  CHECK(lines[3] == "s,r1,d1,g/c,pass,,,100,100,0,1,100,,,,");

  const auto j = to_json(d);
  REQUIRE(j["tests"].size() == 3);
  CHECK(j["tests"][0]["seed"] == "42");
  CHECK(j["tests"][1]["seed"] == "7");
  CHECK(j["tests"][2]["seed"] == "");

  std::ostringstream junit;
  write_junit(d, junit);
  const std::string x = junit.str();
  CHECK(x.find("name=\"a\" time=\"1.000\">\n      <properties>\n        <property name=\"seed\" value=\"42\"/>") !=
        std::string::npos);
  CHECK(x.find("name=\"b\" time=\"1.000\">\n      <properties>\n        <property name=\"seed\" value=\"7\"/>") !=
        std::string::npos);
  CHECK(x.find("name=\"c\" time=\"1.000\">\n      <properties>\n        <property name=\"seed\" value=\"n/a\"/>") !=
        std::string::npos);
}
