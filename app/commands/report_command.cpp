// `mxcosim report`: regenerate every report of a run from the history
// database alone; optionally merge shard databases into it first.
#include <cxxopts.hpp>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli_args.h"
#include "command.h"
#include "regress/db_merge.h"
#include "regress/exports.h"
#include "regress/history_db.h"
#include "regress/html_report.h"
#include "regress/junit_writer.h"
#include "regress/report_data.h"

namespace mxc::app {

namespace {

// When no database is at `path` yet, the files a new one there consists of
// (the file, its WAL and shared-memory index, its rollback journal) that do
// not exist either: a merge that fails removes them, leaving no half-made
// database behind. An existing database's files are never touched (another
// process may have it open).
std::vector<std::string> new_database_files(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) || ec) return {};
  std::vector<std::string> out;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    if (!std::filesystem::exists(path + suffix, ec) && !ec) out.push_back(path + suffix);
  return out;
}

}  // namespace

int report_main(int argc, char** argv) {
  cxxopts::Options opts(argv[0],
                        "Write the reports of one run from a results database: the HTML correlation report,\n"
                        "JUnit XML, CSV and JSON. The run is the newest one matching --suite/--rev/--label (or\n"
                        "--run); the baseline is a run at --baseline REV, else an earlier run, that has results\n"
                        "for the run's tests (docs/regress.md).\n"
                        "Shard databases given as arguments are merged into --db first (see docs/slurm.md).");
  // clang-format off
  opts.add_options()
    ("db", "results database (created when merging into a new file)", cxxopts::value<std::string>())
    ("html", "write the HTML report to FILE", cxxopts::value<std::string>())
    ("junit", "write JUnit XML to FILE", cxxopts::value<std::string>())
    ("csv", "write a CSV export to FILE", cxxopts::value<std::string>())
    ("json", "write a JSON export to FILE", cxxopts::value<std::string>())
    ("baseline", "revision to compare against (default: the newest earlier run with results for the run's tests)",
     cxxopts::value<std::string>())
    ("suite", "report on this suite", cxxopts::value<std::string>()->default_value(""))
    ("rev", "report on a run at this revision", cxxopts::value<std::string>()->default_value(""))
    ("label", "report on the run with this label", cxxopts::value<std::string>()->default_value(""))
    ("run", "report on this run id", cxxopts::value<std::int64_t>())
    ("error-threshold", "flag a test whose |model error| grew by more than this many percentage points",
     cxxopts::value<double>()->default_value("1.0"))
    ("cycles-threshold", "flag a test whose RTL cycles grew by more than this percentage",
     cxxopts::value<double>()->default_value("2.0"))
    ("speed-threshold", "flag a test whose simulation speed fell by more than this percentage",
     cxxopts::value<double>()->default_value("25.0"))
    ("speed-min-seconds", "compare the speed of tests that took at least this long in both runs (shorter ones "
                          "are mostly the process starting)", cxxopts::value<double>()->default_value("2.0"))
    ("fail-on-regression", "exit 1 when any test regressed against the baseline")
    ("sources", "shard databases to merge into --db first", cxxopts::value<std::vector<std::string>>())
    ("h,help", "show this help");
  // clang-format on
  opts.parse_positional({"sources"});
  opts.positional_help("[SHARD_DB...]");
  cxxopts::ParseResult args;
  if (const auto done = parse_arguments(
          opts, argc, argv, args, {.output_files = {"html", "junit", "csv", "json"},
                                           .input_files = {"db", "sources"},
                                           .positional = {{"sources", "SHARD_DB"}}}))
    return *done;
  if (!args.count("db")) {
    std::cerr << argv[0] << ": error: missing --db FILE\n";
    return kExitUsage;
  }
  // --fail-on-regression alone is a check: its exit status is the answer.
  if (!args.count("html") && !args.count("junit") && !args.count("csv") && !args.count("json") &&
      !args.count("sources") && !args.count("fail-on-regression")) {
    std::cerr << argv[0] << ": error: nothing to do: give --html, --junit, --csv, --json or --fail-on-regression\n";
    return kExitUsage;
  }
  regress::Thresholds th;
  th.error_points = args["error-threshold"].as<double>();
  th.cycles_ratio = 1.0 + args["cycles-threshold"].as<double>() / 100.0;
  th.speed_ratio = 1.0 - args["speed-threshold"].as<double>() / 100.0;
  th.speed_min_seconds = args["speed-min-seconds"].as<double>();
  for (const char* option : {"error-threshold", "cycles-threshold", "speed-threshold", "speed-min-seconds"}) {
    const double v = args[option].as<double>();
    const bool percent_of_speed = std::string_view(option) == "speed-threshold";
    if (!(v >= 0) || (percent_of_speed && v > 100)) {
      std::cerr << argv[0] << ": error: --" << option << ": must be " << (percent_of_speed ? "0 to 100" : ">= 0")
                << ", got " << args[option].as<double>() << "\n";
      return kExitUsage;
    }
  }

  // Before the merge, which would otherwise be done and the page not.
  if (args.count("html")) regress::check_report_assets();

  const std::string db_path = args["db"].as<std::string>();
  if (!args.count("sources") && !std::filesystem::exists(db_path)) {
    std::cerr << argv[0] << ": error: results database '" << db_path << "' does not exist\n";
    return kExitUsage;
  }
  std::vector<std::string> sources;
  if (args.count("sources")) sources = args["sources"].as<std::vector<std::string>>();
  for (const auto& s : sources) {
    std::error_code ec;
    if (!std::filesystem::exists(s)) {
      std::cerr << argv[0] << ": error: shard database '" << s << "' does not exist\n";
      return kExitUsage;
    }
    if (std::filesystem::equivalent(s, db_path, ec)) {
      std::cerr << argv[0] << ": error: shard database '" << s << "' is the --db database itself\n";
      return kExitUsage;
    }
  }
  // Only a merge writes: a report alone opens the database read-only.
  const std::vector<std::string> created = new_database_files(db_path);
  std::optional<regress::HistoryDb> db;
  try {
    db.emplace(db_path, sources.empty() ? regress::HistoryDb::Access::read : regress::HistoryDb::Access::write);
    if (!sources.empty()) {
      const auto m = regress::merge_databases(*db, sources);
      std::cout << "merged " << m.results << " results of " << sources.size() << " databases into " << db_path
                << "\n";
    }
  } catch (...) {
    db.reset();  // closed before its files are removed
    for (const auto& f : created) {
      std::error_code ec;
      std::filesystem::remove(f, ec);
    }
    throw;
  }
  // A merge alone is done here, unless its run's regressions decide the exit status.
  if (!args.count("html") && !args.count("junit") && !args.count("csv") && !args.count("json") &&
      !args.count("fail-on-regression"))
    return kExitPass;

  regress::ReportSelection sel;
  sel.suite = args["suite"].as<std::string>();
  sel.rev = args["rev"].as<std::string>();
  sel.label = args["label"].as<std::string>();
  if (args.count("run")) sel.run_id = args["run"].as<std::int64_t>();
  sel.baseline_rev = args.count("baseline") ? args["baseline"].as<std::string>() : "";
  sel.thresholds = th;
  const regress::ReportData data = regress::load_report_data(*db, sel);
  if (args.count("junit")) regress::write_junit_file(data, args["junit"].as<std::string>());
  if (args.count("csv")) regress::write_csv_file(data, args["csv"].as<std::string>());
  if (args.count("json")) regress::write_json_file(data, args["json"].as<std::string>());
  if (args.count("html")) regress::write_html_file(data, args["html"].as<std::string>());
  const regress::ReportTotals n = regress::report_totals(data);
  std::cout << "run " << data.run.suite << " @ " << data.run.rev.substr(0, 12) << " (" << data.run.label
            << "): " << n.total << " tests, " << n.pass << " pass, " << n.fail << " fail, " << n.error << " error"
            << (n.not_run == 0 ? "" : " (" + std::to_string(n.not_run) + " not run)") << ", " << n.skipped
            << " skipped; " << data.regressions.size() << " regression(s)"
            << (data.baseline ? " against " + data.baseline->rev.substr(0, 12) + " (" + data.baseline->label +
                                    "), " + std::to_string(data.compared) + " test(s) compared"
                              : " (no baseline: " + data.baseline_note + ")")
            << "\n";
  if (data.baseline && data.compared == 0) std::cerr << argv[0] << ": warning: " << data.baseline_note << "\n";
  return args.count("fail-on-regression") && !data.regressions.empty() ? kExitFail : kExitPass;
}

}  // namespace mxc::app
