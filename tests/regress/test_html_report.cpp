// The HTML report in a real browser (Debian's headless Chromium): it loads
// offline with no console errors, its charts paint, its table sorts and
// filters. The page's own #selftest script drives the clicks; the expected
// final table is computed here from the records.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "chromium.h"
#include "regress/history_db.h"
#include "regress/html_report.h"
#include "regress/report_data.h"
#include "tests/temp_dir.h"

using namespace mxc::regress;
using namespace mxc::testing;

namespace {

// Text that ends a script element or, unescaped, turns the rest of the
// page into script data.
const std::string kMarkup = "<!--<script></script>";

// How the model's cycles relate to the RTL's in fill().
enum class Model {
  kNone,    // no model cycles
  kVaried,  // model = RTL + (i % 5) * 10 - 20
  kExact,   // model = RTL, and test 1 has 0 RTL cycles (no error)
  kAlone,   // model cycles and no RTL cycles (`mxcosim model` tests)
};

// Two nights of 30 tests; in the second, every 7th test fails. With
// `markup`, test 7's id and every failure message end in kMarkup.
void fill(HistoryDb& db, Model model, bool markup = false) {
  for (int night = 1; night <= 2; ++night) {
    RunInfo k;
    k.suite = "smoke";
    k.rev = "rev" + std::to_string(night);
    k.label = "2025-01-0" + std::to_string(night);
    k.started_at = k.label + "T00:00:00Z";
    const auto run = db.create_run(k);
    for (int i = 1; i <= 30; ++i) {
      TestRecord t;
      t.test_id = std::string("g/t") + (i < 10 ? "0" : "") + std::to_string(i) + (markup && i == 7 ? kMarkup : "");
      t.test_index = i;
      t.status = night == 2 && i % 7 == 0 ? "fail" : "pass";
      if (t.status == "fail")
        t.message = "data scoreboard C[0][" + std::to_string(i) + "] <mismatch> & more" + (markup ? kMarkup : "");
      t.command = "mxcosim run --seed " + std::to_string(i);
      t.seed = std::to_string(i);
      t.wall_seconds = 0.1 * i;
      t.cycles_rtl = model == Model::kExact && i == 1 ? 0 : 1000 + 37 * ((i * 13) % 30);
      if (model != Model::kNone) {
        t.cycles_model = *t.cycles_rtl + (model == Model::kVaried ? (i % 5) * 10 - 20 : 0);
        if (model == Model::kAlone) t.cycles_rtl.reset();
        t.utilisation = 0.02 * i;
        t.bandwidth_gbps = 3.0 * i;
      }
      db.record(run, t);
    }
    db.set_run_state(run, "complete", k.label + "T01:00:00Z");
  }
}

nlohmann::json run_page(const TempDir& dir, Model model, BrowserResult& browser, bool markup = false) {
  if (!std::filesystem::exists(kChromium))
    FAIL("Chromium is not installed at " << kChromium
                                         << ": the HTML report cannot be tested (scripts/install-deps.sh installs it)");
  HistoryDb db(dir / "r.db");
  fill(db, model, markup);
  const std::string page = dir / "report.html";
  write_html_file(load_report_data(db, {}), page);
  browser = load_in_chromium("file://" + page + "#selftest", dir.path().string());
  INFO("chromium log:\n" << browser.log);
  REQUIRE(browser.exit_code == 0);
  const std::string text = element_text(browser.dom, "selftest");
  REQUIRE_FALSE(text.empty());
  return nlohmann::json::parse(text);
}

}  // namespace

TEST_CASE("the HTML report renders in headless Chromium: no errors, charts painted, table sorts and filters") {
  TempDir dir;
  BrowserResult browser;
  const auto st = run_page(dir, Model::kVaried, browser);
  INFO("self-test: " << st.dump());
  CHECK(st["errors"].empty());
  CHECK(browser.log.find("Uncaught") == std::string::npos);
  CHECK(browser.log.find(":ERROR:CONSOLE") == std::string::npos);
  for (const char* chart : {"scatter", "hist", "util", "trend"}) {
    CHECK(st["charts"][chart]["chart"] == true);
    CHECK(st["charts"][chart]["painted_pixels"].get<int>() > 1000);
  }
  CHECK(st["checks"]["sort_numeric_asc"] == true);
  CHECK(st["checks"]["sort_numeric_desc"] == true);
  CHECK(st["checks"]["filter_text_rows"] == 1);
  // Filtered to failures, sorted by id descending: t28, t21, t14, t07.
  CHECK(st["final_rows"] == nlohmann::json::array({"g/t28", "g/t21", "g/t14", "g/t07"}));
  // The downloads hold the rows the table shows, in its order.
  CHECK(st["export_json_ids"] == st["final_rows"]);
  CHECK(st["export_csv_ids"] == st["final_rows"]);
  // The error histogram, recomputed here: 20 bins from the smallest error to
  // the largest, (model - RTL) / RTL in percent, the largest in the last bin.
  std::vector<double> errs;
  for (int i = 1; i <= 30; ++i) {
    const double rtl = 1000 + 37 * ((i * 13) % 30);
    errs.push_back(((i % 5) * 10 - 20) / rtl * 100);
  }
  const double lo = *std::min_element(errs.begin(), errs.end()), hi = *std::max_element(errs.begin(), errs.end());
  const double width = (hi - lo) / 20;
  std::vector<int> counts(20, 0);
  for (const double e : errs) ++counts[std::min(19, static_cast<int>((e - lo) / width))];
  CHECK(st["histogram"]["counts"] == nlohmann::json(counts));
  CHECK(std::stod(st["histogram"]["labels"][0].get<std::string>()) == Approx(lo + width / 2).margin(0.006));
  CHECK(std::stod(st["histogram"]["labels"][19].get<std::string>()) == Approx(hi - width / 2).margin(0.006));
  // The regressions (pass -> fail against the night before) are at the top.
  CHECK(browser.dom.find("4 regressions against baseline rev1 (2025-01-01), 30 tests compared") != std::string::npos);
  CHECK(browser.dom.find("id=\"baseline-warning\"") == std::string::npos);
  CHECK(browser.dom.find("id=\"regression-banner\"") < browser.dom.find("id=\"summary\""));
  // Self-contained: nothing is fetched from anywhere.
  const std::string html = read_text(dir / "report.html");
  CHECK(html.find("<script src") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
}

TEST_CASE("the HTML report without model data, or with model cycles alone, says so instead of drawing empty charts") {
  // Model cycles alone had read "no test in this run reports cycles.model", which every test did.
  for (const auto& [model, why] : {std::pair{Model::kNone, "No model data"}, {Model::kAlone, "No RTL cycles"}}) {
    TempDir dir;
    BrowserResult browser;
    const auto st = run_page(dir, model, browser);
    INFO("self-test: " << st.dump());
    CHECK(st["errors"].empty());
    CHECK(st["charts"]["scatter"]["chart"] == false);
    CHECK(st["charts"]["scatter"]["note"].get<std::string>().rfind(why, 0) == 0);
    CHECK(st["charts"]["hist"]["note"].get<std::string>().rfind(why, 0) == 0);
    if (model != Model::kNone) continue;
    CHECK(st["charts"]["util"]["note"] == "No utilisation or bandwidth data in these results.");
    CHECK(st["charts"]["trend"]["painted_pixels"].get<int>() > 1000);
  }
}

TEST_CASE("the error histogram of tests the model matches exactly is one bin at 0, without tests of no error") {
  TempDir dir;
  BrowserResult browser;
  const auto st = run_page(dir, Model::kExact, browser);
  INFO("self-test: " << st.dump());
  CHECK(st["errors"].empty());
  // Test 1 has 0 RTL cycles, so no error: 29 tests, all at 0 % (it used to
  // be 30 in the first of 20 bins labelled from 0.5 %).
  CHECK(st["histogram"]["labels"] == nlohmann::json::array({"0.00"}));
  CHECK(st["histogram"]["counts"] == nlohmann::json::array({29}));
  CHECK(st["charts"]["hist"]["painted_pixels"].get<int>() > 1000);
}

TEST_CASE("data that reads as markup stays inside the report's data block") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  fill(db, Model::kVaried, true);
  std::ostringstream page;
  write_html(load_report_data(db, {}), page);
  const std::string html = page.str();
  const std::string open = "<script id=\"report-data\" type=\"application/json\">";
  const auto start = html.find(open);
  REQUIRE(start != std::string::npos);
  // The block ends at the first "</script" after it (the HTML parser's
  // rule); nothing in it may open a tag or a comment either.
  const auto end = html.find("</script", start);
  REQUIRE(end != std::string::npos);
  const std::string block = html.substr(start + open.size(), end - start - open.size());
  CHECK(block.find('<') == std::string::npos);
  CHECK(html.compare(end, 10, "</script>\n") == 0);
  // Every script element opens and closes once.
  CHECK(count_of(html, "<script") == count_of(html, "</script>"));
  // The data reads back whole.
  const auto data = nlohmann::json::parse(block);
  bool id_found = false, message_found = false;
  for (const auto& t : data["tests"]) {
    id_found = id_found || t["id"] == "g/t07" + kMarkup;
    message_found = message_found || t["message"] == "data scoreboard C[0][14] <mismatch> & more" + kMarkup;
  }
  CHECK(id_found);
  CHECK(message_found);
}

TEST_CASE("the HTML report renders its rows when the data reads as markup") {
  TempDir dir;
  BrowserResult browser;
  const auto st = run_page(dir, Model::kVaried, browser, true);
  INFO("self-test: " << st.dump());
  CHECK(st["errors"].empty());
  CHECK(st["final_rows"] == nlohmann::json::array({"g/t28", "g/t21", "g/t14", "g/t07" + kMarkup}));
  // The message is text in its row.
  CHECK(browser.dom.find("data scoreboard C[0][14] &lt;mismatch&gt; &amp; more&lt;!--&lt;script&gt;&lt;/script&gt;") !=
        std::string::npos);
}

TEST_CASE("the HTML report lists the tests an interrupted run never ran as errors, and counts them") {
  if (!std::filesystem::exists(kChromium)) FAIL("Chromium is not installed at " << kChromium);
  TempDir dir;
  HistoryDb db(dir / "r.db");
  RunInfo k;
  k.suite = "night";
  k.rev = "r1";
  k.label = "d1";
  const auto run = db.create_run(k);
  db.add_to_plan(run, {"g/a", "g/b", "g/c"}, "");
  TestRecord a;
  a.test_id = "g/a";
  a.status = "pass";
  db.record(run, a);
  db.set_run_state(run, "interrupted", "2025-01-01T01:00:00Z");
  const std::string page = dir / "report.html";
  write_html_file(load_report_data(db, {}), page);
  // Without #selftest: its clicks would leave the table filtered to failures.
  const BrowserResult browser = load_in_chromium("file://" + page, dir.path().string());
  INFO("chromium log:\n" << browser.log);
  REQUIRE(browser.exit_code == 0);
  CHECK(browser.log.find("Uncaught") == std::string::npos);
  CHECK(browser.log.find(":ERROR:CONSOLE") == std::string::npos);
  // Three rows: g/a that passed, g/b and g/c as errors saying why.
  CHECK(element_text(browser.dom, "shown-count") == "3 of 3 tests");
  CHECK(browser.dom.find("<tr class=\"status-error\" data-id=\"g/b\">") != std::string::npos);
  CHECK(browser.dom.find("<tr class=\"status-error\" data-id=\"g/c\">") != std::string::npos);
  CHECK(count_of(browser.dom, "<td class=\"msg\"><div>not run: the regression was interrupted before it</div></td>") ==
        2);
  // The summary: 3 tests, 1 pass, 2 errors, 2 of them not run.
  CHECK(browser.dom.find("<div class=\"card total\"><div class=\"n\">3</div>") != std::string::npos);
  CHECK(browser.dom.find("<div class=\"card error\"><div class=\"n\">2</div>") != std::string::npos);
  CHECK(browser.dom.find("<div class=\"card not-run\"><div class=\"n\">2</div><div>not run</div>") !=
        std::string::npos);
}

TEST_CASE("the HTML report warns when the baseline shares no test with the run") {
  if (!std::filesystem::exists(kChromium)) FAIL("Chromium is not installed at " << kChromium);
  TempDir dir;
  HistoryDb db(dir / "r.db");
  for (const char* rev : {"r1", "r2"}) {
    const auto run = db.create_run(RunInfo{.suite = "s", .rev = rev, .label = "d"});
    TestRecord t;
    t.test_id = rev == std::string("r1") ? "quick/a" : "full/b";
    t.status = "pass";
    db.record(run, t);
    db.set_run_state(run, "complete", "2025-01-01T01:00:00Z");
  }
  ReportSelection sel;
  sel.baseline_rev = "r1";
  const std::string page = dir / "report.html";
  write_html_file(load_report_data(db, sel), page);
  const BrowserResult browser = load_in_chromium("file://" + page, dir.path().string());
  INFO("chromium log:\n" << browser.log);
  REQUIRE(browser.exit_code == 0);
  CHECK(browser.log.find("Uncaught") == std::string::npos);
  CHECK(element_text(browser.dom, "baseline-warning") ==
        "Nothing compared: no test of this run has a result in baseline r1 (d)");
  CHECK(browser.dom.find("No regressions against baseline r1 (d), 0 tests compared") != std::string::npos);
}

TEST_CASE("a missing charting library is a clear error, not a broken page") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  fill(db, Model::kVaried);
  CHECK_THROWS_WITH(write_html_file(load_report_data(db, {}), dir / "r.html", dir / "no-assets"),
                    Catch::Matchers::Contains("node_modules/chart.js/dist/chart.umd.js' is missing") &&
                        Catch::Matchers::Contains("scripts/install-deps.sh"));
  CHECK_FALSE(std::filesystem::exists(dir / "r.html"));
  CHECK(script_safe("a</script>b") == "a<\\/script>b");
  CHECK(json_in_html(R"({"m":"<!--<script></script>"})") == R"({"m":"\u003c!--\u003cscript>\u003c/script>"})");
}
