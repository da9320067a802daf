// Measures (1) the smoke suite's wall time with -j1 and -j2 and their ratio,
// (2) the time to load and write every report over 10,000 results.
//   regress_bench [--suite FILE] [--results N] [--skip-suite]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "regress/exports.h"
#include "regress/history_db.h"
#include "regress/html_report.h"
#include "regress/junit_writer.h"
#include "regress/report_data.h"
#include "regress/runner.h"

using namespace mxc::regress;
namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

fs::path temp_dir() {
  std::string tmpl = (fs::temp_directory_path() / "mxcosim_regress_bench_XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

double run_suite_with(const Suite& suite, unsigned jobs, const fs::path& dir, Counts& counts) {
  HistoryDb db((dir / ("j" + std::to_string(jobs) + ".db")).string());
  RunnerOptions o;
  o.executable = MXCOSIM_BIN;
  o.out_dir = (dir / ("j" + std::to_string(jobs))).string();
  o.jobs = jobs;
  o.progress = false;
  o.rev = "bench";
  const auto t = std::chrono::steady_clock::now();
  const RunSummary s = run_suite(suite, o, db);
  counts = s.counts;
  return seconds_since(t);
}

}  // namespace

int main(int argc, char** argv) {
  std::string suite_path = MXCOSIM_SOURCE_DIR "/regress/smoke.yaml";
  std::size_t n_results = 10000;
  bool skip_suite = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--suite" && i + 1 < argc) suite_path = argv[++i];
    else if (a == "--results" && i + 1 < argc) n_results = std::stoul(argv[++i]);
    else if (a == "--skip-suite") skip_suite = true;
    else {
      std::fprintf(stderr, "usage: %s [--suite FILE] [--results N] [--skip-suite]\n", argv[0]);
      return 2;
    }
  }
  const fs::path dir = temp_dir();
  std::printf("cores: %ld\n", sysconf(_SC_NPROCESSORS_ONLN));

  if (!skip_suite) {
    const Suite suite = load_suite(suite_path);
    // -j1, -j2, -j2, -j1 (best of two each): a change in the machine's load falls on both.
    Counts c1, c2, again;
    double t1 = run_suite_with(suite, 1, dir, c1);
    double t2 = run_suite_with(suite, 2, dir, c2);
    t2 = std::min(t2, run_suite_with(suite, 2, dir, again));
    t1 = std::min(t1, run_suite_with(suite, 1, dir, again));
    std::printf("suite %s: %zu tests (%zu pass, %zu skipped, %zu fail+error)\n", suite.name.c_str(),
                suite.tests.size(), c1.pass, c1.skipped, c1.fail + c1.error);
    // A -j2 run that failed fast would look like a speed-up.
    if (c2.pass != c1.pass || c2.skipped != c1.skipped || c2.fail + c2.error != c1.fail + c1.error) {
      std::printf("  -j2 gave other results (%zu pass, %zu skipped, %zu fail+error): no speed-up to report\n",
                  c2.pass, c2.skipped, c2.fail + c2.error);
      return 1;
    }
    std::printf("  -j1 %.2f s   -j2 %.2f s   speedup %.2fx (target >= 1.8x on two idle cores)\n", t1, t2, t1 / t2);
  }

  // Two runs of n_results tests each (the second is reported against the first).
  const std::string db_path = (dir / "big.db").string();
  {
    HistoryDb db(db_path);
    for (int night = 1; night <= 2; ++night) {
      RunInfo k;
      k.suite = "bench";
      k.rev = "rev" + std::to_string(night);
      k.label = "night" + std::to_string(night);
      k.started_at = "2025-01-0" + std::to_string(night) + "T00:00:00Z";
      const auto run = db.create_run(k);
      std::vector<TestRecord> recs;
      for (std::size_t i = 0; i < n_results; ++i) {
        TestRecord r;
        r.test_id = "gemm/t" + std::to_string(i);
        r.test_index = static_cast<std::int64_t>(i);
        r.status = (night == 2 && i % 97 == 0) ? "fail" : "pass";
        r.message = r.status == "fail" ? "data scoreboard C[0][1] value: expected 0x1, got 0x0" : "";
        r.seed = std::to_string(i % 16);
        r.command = "mxcosim run --seed " + r.seed;
        r.wall_seconds = 0.5 + static_cast<double>(i % 13) * 0.01;
        r.cycles_rtl = static_cast<std::int64_t>(1000 + i % 500);
        r.cycles_model = *r.cycles_rtl + static_cast<std::int64_t>(i % 21) - 10;
        r.utilisation = static_cast<double>(i % 100) / 100.0;
        r.bandwidth_gbps = static_cast<double>(i % 400);
        r.results_json = R"({"schema_version":1,"status":"pass","cycles":{"rtl":)" +
                         std::to_string(*r.cycles_rtl) + "}}";
        recs.push_back(std::move(r));
      }
      db.record_all(run, recs);
      db.set_run_state(run, "complete", "");
    }
  }
  const auto t = std::chrono::steady_clock::now();
  HistoryDb db(db_path);
  const ReportData data = load_report_data(db, {});
  const double t_load = seconds_since(t);
  write_html_file(data, (dir / "report.html").string());
  write_junit_file(data, (dir / "junit.xml").string());
  write_csv_file(data, (dir / "results.csv").string());
  write_json_file(data, (dir / "results.json").string());
  const double t_all = seconds_since(t);
  std::printf("report over %zu results (+%zu baseline): load %.2f s, load + HTML + JUnit + CSV + JSON %.2f s "
              "(target < 10 s); HTML %.1f MB, %zu regressions flagged\n",
              data.tests.size(), n_results, t_load, t_all,
              static_cast<double>(fs::file_size(dir / "report.html")) / 1e6, data.regressions.size());
  fs::remove_all(dir);
  return 0;
}
