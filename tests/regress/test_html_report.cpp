// The HTML report in a real browser (Debian's headless Chromium): it loads
// offline with no console errors, its charts paint, its table sorts and
// filters. The page's own #selftest script drives the clicks; the expected
// final table is computed here from the records.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "chromium.h"
#include "regress/history_db.h"
#include "regress/html_report.h"
#include "regress/report_data.h"
#include "tests/temp_dir.h"

using namespace mxc::regress;
using namespace mxc::testing;

namespace {

// Two nights of 30 tests; in the second, every 7th test fails.
void fill(HistoryDb& db, bool with_model) {
  for (int night = 1; night <= 2; ++night) {
    RunInfo k;
    k.suite = "smoke";
    k.rev = "rev" + std::to_string(night);
    k.label = "2025-01-0" + std::to_string(night);
    k.started_at = k.label + "T00:00:00Z";
    const auto run = db.create_run(k);
    for (int i = 1; i <= 30; ++i) {
      TestRecord t;
      t.test_id = std::string("g/t") + (i < 10 ? "0" : "") + std::to_string(i);
      t.test_index = i;
      t.status = night == 2 && i % 7 == 0 ? "fail" : "pass";
      if (t.status == "fail") t.message = "data scoreboard C[0][" + std::to_string(i) + "] <mismatch> & more";
      t.command = "mxcosim run --seed " + std::to_string(i);
      t.seed = std::to_string(i);
      t.wall_seconds = 0.1 * i;
      t.cycles_rtl = 1000 + 37 * ((i * 13) % 30);
      if (with_model) {
        t.cycles_model = *t.cycles_rtl + (i % 5) * 10 - 20;
        t.utilisation = 0.02 * i;
        t.bandwidth_gbps = 3.0 * i;
      }
      db.record(run, t);
    }
    db.set_run_state(run, "complete", k.label + "T01:00:00Z");
  }
}

nlohmann::json run_page(const TempDir& dir, bool with_model, BrowserResult& browser) {
  if (!std::filesystem::exists(kChromium))
    FAIL("Chromium is not installed at " << kChromium
                                         << ": the HTML report cannot be tested (scripts/install-deps.sh installs it)");
  HistoryDb db(dir / "r.db");
  fill(db, with_model);
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
  const auto st = run_page(dir, true, browser);
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
  // The regressions (pass -> fail against the night before) are at the top.
  CHECK(browser.dom.find("4 regressions against baseline rev1 (2025-01-01)") != std::string::npos);
  CHECK(browser.dom.find("id=\"regression-banner\"") < browser.dom.find("id=\"summary\""));
  // Self-contained: nothing is fetched from anywhere.
  const std::string html = read_text(dir / "report.html");
  CHECK(html.find("<script src") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
}

TEST_CASE("the HTML report without model data says so instead of drawing empty charts") {
  TempDir dir;
  BrowserResult browser;
  const auto st = run_page(dir, false, browser);
  INFO("self-test: " << st.dump());
  CHECK(st["errors"].empty());
  CHECK(st["charts"]["scatter"]["chart"] == false);
  CHECK(st["charts"]["scatter"]["note"].get<std::string>().rfind("No model data", 0) == 0);
  CHECK(st["charts"]["hist"]["note"].get<std::string>().rfind("No model data", 0) == 0);
  CHECK(st["charts"]["util"]["note"] == "No utilisation or bandwidth data in these results.");
  CHECK(st["charts"]["trend"]["painted_pixels"].get<int>() > 1000);
}

TEST_CASE("a missing charting library is a clear error, not a broken page") {
  TempDir dir;
  HistoryDb db(dir / "r.db");
  fill(db, true);
  CHECK_THROWS_WITH(write_html_file(load_report_data(db, {}), dir / "r.html", dir / "no-assets"),
                    Catch::Matchers::Contains("node_modules/chart.js/dist/chart.umd.js' is missing") &&
                        Catch::Matchers::Contains("scripts/install-deps.sh"));
  CHECK_FALSE(std::filesystem::exists(dir / "r.html"));
  CHECK(script_safe("a</script>b") == "a<\\/script>b");
}
