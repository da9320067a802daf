// Reports from a results database someone else wrote: another tool, a
// script, a disk that lost a page. A database with the right schema and any
// values in its rows (NULL where the schema allows it, negative or huge
// numbers, text where numbers belong, bytes that are not UTF-8, rows
// deleted, runs without results) must give a report, or an error naming
// the database; never a crash (run under -DMXCOSIM_SANITIZE=ON for memory
// errors) nor output that is not UTF-8.
#include <catch2/catch.hpp>
#include <sqlite3.h>

#include <filesystem>
#include <random>
#include <sstream>

#include "models/core/utf8.h"
#include "regress/exports.h"
#include "regress/history_db.h"
#include "regress/html_report.h"
#include "regress/junit_writer.h"
#include "regress/report_data.h"
#include "tests/temp_dir.h"

using namespace mxc::regress;
using mxc::testing::TempDir;

namespace {

// Three runs of one suite, each with a few results of every status.
void fill(HistoryDb& db) {
  for (int r = 0; r < 3; ++r) {
    RunInfo k;
    k.suite = "s";
    k.rev = "rev" + std::to_string(r);
    k.label = "day" + std::to_string(r);
    k.started_at = "2026-01-0" + std::to_string(r + 1) + "T00:00:00Z";
    const auto run = db.create_run(k);
    const char* statuses[] = {"pass", "fail", "error", "skipped"};
    for (int i = 0; i < 6; ++i) {
      TestRecord t;
      t.test_id = "g/t" + std::to_string(i);
      t.test_index = i;
      t.status = statuses[(i + r) % 4];
      t.message = t.status == "pass" ? "" : "why " + std::to_string(i);
      t.seed = std::to_string(i);
      t.command = "mxcosim run --seed " + t.seed;
      t.cycles_rtl = 1000 + 10 * i;
      t.cycles_model = 1000 + 11 * i;
      t.wall_seconds = 0.5 + i;
      db.record(run, t);
    }
    db.set_run_state(run, "complete", "2026-01-0" + std::to_string(r + 1) + "T01:00:00Z");
  }
}

const char* const kColumns[][2] = {
    {"runs", "suite"},          {"runs", "rev"},           {"runs", "label"},        {"runs", "started_at"},
    {"runs", "finished_at"},    {"runs", "state"},         {"runs", "host"},         {"runs", "shard"},
    {"runs", "planned"},        {"results", "test_id"},    {"results", "test_index"}, {"results", "status"},
    {"results", "message"},     {"results", "seed"},       {"results", "tags"},       {"results", "command"},
    {"results", "exit_code"},   {"results", "wall_seconds"}, {"results", "finished_at"}, {"results", "attempts"},
    {"results", "cycles_rtl"},  {"results", "cycles_model"}, {"results", "instructions"},
    {"results", "mismatch_count"}, {"results", "sim_time_ns"}, {"results", "utilisation"},
    {"results", "bandwidth_gbps"}, {"results", "results_json"}, {"results", "log_dir"},
    {"planned_tests", "test_id"},
};
const char* const kValues[] = {
    "NULL", "0", "-1", "1", "9223372036854775807", "-9223372036854775808", "1e308", "-1e308", "0.5",
    "''", "'pass'", "'fail'", "'error'", "'skipped'", "'weird'", "'complete'", "'interrupted'",
    "'rev0'", "'s'", "'g/t1'", "'3/2'", "'0/0'", "'not a date'", "'2026-13-45T99:99:99Z'", "x'ff00fe'",
    "'{\"status\": 1}'", "'a,b,,c'", "'<script>&'", "CAST(x'c3' AS TEXT)",
};

// Applies `n` random changes (an UPDATE of one cell, or a DELETE of a row);
// a change the schema refuses (NULL into NOT NULL, a duplicate key) is skipped.
void mutate(const std::string& path, std::mt19937_64& rng, int n) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  for (int i = 0; i < n; ++i) {
    const auto& [table, column] = kColumns[rng() % std::size(kColumns)];
    std::string sql;
    if (rng() % 8 == 0) {
      sql = std::string("DELETE FROM ") + table + " WHERE rowid = (SELECT rowid FROM " + table +
            " ORDER BY rowid LIMIT 1 OFFSET " + std::to_string(rng() % 8) + ")";
    } else {
      sql = std::string("UPDATE ") + table + " SET " + column + " = " + kValues[rng() % std::size(kValues)] +
            " WHERE rowid = (SELECT rowid FROM " + table + " ORDER BY rowid LIMIT 1 OFFSET " +
            std::to_string(rng() % 20) + ")";
    }
    sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  }
  sqlite3_close(db);
}

}  // namespace

TEST_CASE("report fuzz: a database with any values in its rows gives a report or an error naming it") {
  TempDir dir;
  const std::string base = dir / "base.db", path = dir / "r.db";
  {
    HistoryDb db(base);
    fill(db);
  }
  // Stand-ins for the report's script, style and charting library: the
  // page around the data is what is tested, not the npm packages.
  const auto assets = dir.path() / "assets";
  std::filesystem::create_directories(assets / "node_modules/chart.js/dist");
  for (const char* f : {"report.js", "report.css", "node_modules/chart.js/dist/chart.umd.js"})
    mxc::testing::write_text((assets / f).string(), "/* stand-in */\n");
  std::mt19937_64 rng(7);
  int reports = 0, errors = 0;
  for (int iteration = 0; iteration < 300; ++iteration) {
    INFO("iteration " << iteration);
    std::filesystem::copy_file(base, path, std::filesystem::copy_options::overwrite_existing);
    mutate(path, rng, 1 + static_cast<int>(rng() % 6));
    try {
      HistoryDb db(path, HistoryDb::Access::read);
      const ReportData d = load_report_data(db, {});
      std::ostringstream html, junit, csv;
      write_html(d, html, assets.string());
      write_junit(d, junit);
      write_csv(d, csv);
      CHECK(mxc::first_non_utf8(junit.str()) == std::string_view::npos);
      CHECK(mxc::first_non_utf8(html.str()) == std::string_view::npos);
      ++reports;
    } catch (const std::exception& e) {
      CHECK_THAT(e.what(), Catch::Contains(path));
      ++errors;
    }
  }
  // Most changes leave a report to write; some leave no run to report on.
  CHECK(reports > 150);
  CHECK(reports + errors == 300);
}
