// `mxcosim regress`: run a suite in parallel child processes, record every
// result in the history database, and write JUnit XML and the HTML report.
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cxxopts.hpp>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <set>

#include "cli_args.h"
#include "command.h"
#include "models/core/output_file.h"
#include "stop_signals.h"
#include "regress/cpu_count.h"
#include "regress/exports.h"
#include "regress/git_rev.h"
#include "regress/history_db.h"
#include "regress/html_report.h"
#include "regress/junit_writer.h"
#include "regress/out_dir_lock.h"
#include "regress/outcome.h"
#include "regress/report_data.h"
#include "regress/runner.h"
#include "regress/suite.h"

namespace mxc::app {

// The runner holds a test's verdict when it exits as a command stopped by a signal does.
static_assert(regress::kExitStoppedBySignal == kExitStopped);

namespace {


std::string self_path() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find this program's path (/proc/self/exe); pass --exe");
  return std::string(buf, static_cast<std::size_t>(n));
}

// Creates the --out folder and checks every file the command writes in it:
// a path that cannot be written would otherwise fail only after the whole
// suite ran, leaving the reports unwritten.
void prepare_out_dir(const std::string& out, bool reports) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    throw std::invalid_argument("--out '" + out + "': not a folder");
  fs::create_directories(out, ec);
  if (ec) throw std::invalid_argument("--out '" + out + "': cannot create the folder: " + ec.message());
  const fs::path tests = fs::path(out) / "tests";
  if (fs::exists(tests, ec) && !fs::is_directory(tests, ec))
    throw std::invalid_argument("--out '" + out + "': '" + tests.string() +
                                "' is not a folder (the tests' logs go there)");
  const fs::path runs = fs::path(out) / "runs";
  if (fs::exists(runs, ec) && !fs::is_directory(runs, ec))
    throw std::invalid_argument("--out '" + out + "': '" + runs.string() +
                                "' is not a folder (earlier runs' logs go there)");
  if (!reports) return;
  for (const char* name : {"junit.xml", "report.html", "results.csv", "results.json"})
    check_output_path((fs::path(out) / name).string(), "--out");
}

// Writes every report, each whatever became of the others (a full disk
// fails one and may leave room for a smaller one); says each that failed on
// stderr and removes what is at its path, which is either cut short or an
// earlier run's report that would be read as this run's. Returns how many
// failed.
std::size_t write_reports(const regress::ReportData& data, const std::filesystem::path& out, const char* argv0) {
  using Writer = void (*)(const regress::ReportData&, const std::string&);
  const std::pair<const char*, Writer> reports[] = {
      {"junit.xml", [](const regress::ReportData& d, const std::string& p) { regress::write_junit_file(d, p); }},
      {"results.csv", regress::write_csv_file},
      {"results.json", regress::write_json_file},
      {"report.html", [](const regress::ReportData& d, const std::string& p) { regress::write_html_file(d, p); }},
  };
  std::size_t failed = 0;
  for (const auto& [name, write] : reports) {
    const std::string path = (out / name).string();
    try {
      write(data, path);
    } catch (const std::exception& e) {
      ++failed;
      std::error_code ec;
      const bool removed = std::filesystem::remove(path, ec);
      std::cerr << argv0 << ": error: report " << path << " not written: " << e.what()
                << (removed ? "; removed what was there"
                    : std::filesystem::exists(path, ec) ? "; what is there is NOT of this run (cannot remove it: " +
                                                              ec.message() + ")"
                                                        : "")
                << "\n";
    }
  }
  return failed;
}

// Planned tests of the run without a result: every report counts them as
// errors, so the exit status does too (a run resumed with --tag that passed
// its tests has not passed the others).
std::size_t not_run_count(regress::HistoryDb& db, std::int64_t run_id) {
  const std::set<std::string> finished = db.finished_tests(run_id);
  std::size_t n = 0;
  for (const auto& id : db.plan_in_order(run_id)) n += finished.count(id) == 0;
  return n;
}

}  // namespace

int regress_main(int argc, char** argv) {
  // An ignored SIGCHLD (exec keeps SIG_IGN from the parent) has the kernel reap each child the moment it
  // ends, leaving waitpid() nothing to say how a test (or `git rev-parse`) ended.
  std::signal(SIGCHLD, SIG_DFL);
  cxxopts::Options opts(argv[0],
                        "Run a regression suite: every test in its own process with a timeout, N at a time.\n"
                        "Results go to DIR/results.db (SQLite history) as each test finishes; then DIR/junit.xml,\n"
                        "DIR/report.html, DIR/results.csv and DIR/results.json are written from it. Running the\n"
                        "same command again after an interruption resumes the run. Exits 0 when every test passed\n"
                        "or was skipped, 1 when any failed or errored or a test of the run's plan has no result,\n"
                        "2 on bad input, 130 when interrupted.");
  // clang-format off
  opts.add_options()
    ("suite", "suite YAML file (e.g. regress/smoke.yaml)", cxxopts::value<std::string>())
    ("j,jobs", "tests run at once", cxxopts::value<unsigned>()->default_value("1"))
    ("out", "output folder (results.db, junit.xml, report.html, tests/<id>/ logs)", cxxopts::value<std::string>())
    ("shard", "run only shard K of N (K/N, 1-based): test i belongs to shard (i mod N) + 1", cxxopts::value<std::string>())
    ("rerun-failed", "run again only the tests that failed or errored in the newest run of the suite in "
                     "DIR/results.db, replacing their results (earlier attempts' logs: DIR/runs/)")
    ("tag", "run only tests carrying this tag", cxxopts::value<std::string>()->default_value(""))
    ("timeout", "seconds per test, overriding the suite's", cxxopts::value<double>())
    ("max-log-mb", "a test whose stdout or stderr log passes this many MiB is killed, an error (0: no limit)",
     cxxopts::value<std::uint64_t>()->default_value("1024"))
    ("rev", "revision recorded with the results (default: git rev-parse HEAD in the suite file's folder, else in "
     "the working directory, else 'unknown')", cxxopts::value<std::string>())
    ("label", "run label: runs of one suite at one revision with one label are one run (default: that of the newest "
              "unfinished run with a date label, else the UTC date)", cxxopts::value<std::string>())
    ("baseline", "revision the report compares against (default: the newest earlier run with results for the "
                 "run's tests)", cxxopts::value<std::string>())
    ("no-repeat", "when the run this command names (suite, revision, label) is complete, do nothing and exit 0 "
                  "rather than start a repeat of it (a resubmitted batch job)")
    ("list", "print the selected tests and their commands, run nothing")
    ("no-progress", "no progress output (start line, progress lines, heartbeats) on stderr")
    ("no-report", "record results only; write no JUnit/HTML/CSV/JSON")
    ("exe", "program each test's arguments are given to (default: this mxcosim)", cxxopts::value<std::string>())
    ("h,help", "show this help");
  // clang-format on
  opts.parse_positional({"suite"});
  opts.positional_help("SUITE");
  cxxopts::ParseResult args;
  if (const auto done = parse_arguments(opts, argc, argv, args)) return *done;
  if (!args.count("suite")) {
    std::cerr << argv[0] << ": error: missing SUITE (see " << argv[0] << " --help)\n";
    return kExitUsage;
  }
  const regress::Suite suite = regress::load_suite(args["suite"].as<std::string>());

  regress::RunnerOptions ro;
  ro.jobs = args["jobs"].as<unsigned>();
  if (ro.jobs == 0 || ro.jobs > 1024) {
    std::cerr << argv[0] << ": --jobs must be in [1, 1024]\n";
    return kExitUsage;
  }
  // A run's second thread helps only with a core to spare for it: counted among the CPUs this
  // process may use (taskset, a Slurm task's or a container's CPUs), not the machine's.
  ro.one_thread_per_run = 2 * ro.jobs > regress::usable_cpus();
  if (args.count("shard")) ro.shard = regress::parse_shard(args["shard"].as<std::string>());
  ro.tag = args["tag"].as<std::string>();
  if (args.count("timeout")) {
    const double t = args["timeout"].as<double>();
    if (!(t > 0)) {
      std::cerr << argv[0] << ": --timeout must be > 0 seconds\n";
      return kExitUsage;
    }
    ro.timeout_seconds = t;
  }
  const std::uint64_t max_log_mb = args["max-log-mb"].as<std::uint64_t>();
  if (max_log_mb > (std::uint64_t{1} << 40)) {
    std::cerr << argv[0] << ": --max-log-mb must be at most 2^40\n";
    return kExitUsage;
  }
  ro.max_log_bytes = max_log_mb << 20;

  if (args.count("list")) {
    const auto tests = regress::select_tests(suite, ro.tag, ro.shard);
    for (const auto& t : tests) {
      // Quoted as a shell reads it: each line can be pasted to run the test (but for a control
      // character in a suite's value, written '?' as on every console line).
      std::vector<std::string> command{"mxcosim"};
      command.insert(command.end(), t.args.begin(), t.args.end());
      std::cout << regress::console_text(t.id) << "\n    " << regress::console_text(regress::shell_join(command))
                << (t.expect_fail ? "   (expected to fail)" : "")
                << "\n";
    }
    std::cout << tests.size() << " tests\n";
    return kExitPass;
  }
  if (!args.count("out")) {
    std::cerr << argv[0] << ": error: missing --out DIR\n";
    return kExitUsage;
  }
  // One spelling of the folder however it is given (relative, through a link, with ".."):
  // the log folders recorded for each run are matched by it when a later run moves them.
  ro.out_dir = full_path(args["out"].as<std::string>());
  ro.executable = args.count("exe") ? args["exe"].as<std::string>() : self_path();
  // This program's own image, whatever a rebuild during the run puts at its path (an --exe is run by its path).
  if (!args.count("exe")) ro.image = "/proc/self/exe";
  // Checked before anything runs: a program that cannot start would
  // otherwise be recorded as an error of every test.
  if (std::error_code ec; !std::filesystem::is_regular_file(ro.executable, ec) ||
                          access(ro.executable.c_str(), X_OK) != 0) {
    std::cerr << argv[0] << ": --exe '" << ro.executable << "': "
              << (!std::filesystem::exists(ro.executable, ec)          ? "no such file"
                  : !std::filesystem::is_regular_file(ro.executable, ec) ? "not a regular file"
                                                                         : "not executable")
              << "\n";
    return kExitUsage;
  }
  // The checkout the suite file is in (a nightly flow runs it from anywhere), else the working directory's.
  if (args.count("rev")) {
    ro.rev = args["rev"].as<std::string>();
  } else {
    const std::string suite_dir = std::filesystem::path(args["suite"].as<std::string>()).parent_path().string();
    ro.rev = regress::git_revision(suite_dir.empty() ? "." : suite_dir);
    if (ro.rev == "unknown") ro.rev = regress::git_revision(".");
  }
  if (ro.rev.empty()) throw std::invalid_argument("--rev: must not be empty (runs are told apart by it)");
  ro.label = args.count("label") ? args["label"].as<std::string>() : "";
  ro.host = regress::host_name();
  ro.rerun_failed = args.count("rerun-failed") > 0;
  ro.progress = !args.count("no-progress");
  ro.stop = StopSignals::flag();

  if (!args.count("no-report")) regress::check_report_assets();
  // Mistakes of the command are said before the folder, its lock and its database are made,
  // which would otherwise be left behind: a selection of no test, and an earlier run asked
  // of a folder that has none.
  regress::select_tests(suite, ro.tag, ro.shard);  // throws naming the filter that selects nothing
  const std::string db_path = (std::filesystem::path(ro.out_dir) / "results.db").string();
  const std::string baseline = args.count("baseline") ? args["baseline"].as<std::string>() : "";
  if (std::error_code ec; (!baseline.empty() || ro.rerun_failed) && !std::filesystem::exists(db_path, ec)) {
    std::cerr << argv[0] << ": " << (ro.rerun_failed ? "--rerun-failed" : "--baseline '" + baseline + "'") << ": "
              << db_path << " does not exist: --out holds no earlier run\n";
    return kExitUsage;
  }
  prepare_out_dir(ro.out_dir, !args.count("no-report"));
  const regress::OutDirLock lock(ro.out_dir);
  regress::HistoryDb db(db_path);
  // The run this command continues is not its own baseline (the report leaves it out).
  if (!baseline.empty() && !regress::has_run_at(db, suite.name, baseline, regress::run_to_continue(db, suite, ro))) {
    std::cerr << argv[0] << ": --baseline '" << baseline << "': " << db_path << " has no other run of suite '"
              << suite.name << "' at that revision\n";
    return kExitUsage;
  }

  if (args.count("no-repeat")) {
    if (ro.rerun_failed) {
      std::cerr << argv[0] << ": --no-repeat: --rerun-failed always records into the newest run\n";
      return kExitUsage;
    }
    if (const auto done = regress::run_to_repeat(db, suite, ro)) {
      std::cout << "run " << done->label << " of suite " << suite.name << " @ " << done->rev.substr(0, 12)
                << " is complete: nothing to do (--no-repeat)\n";
      return kExitPass;
    }
  }

  // --rerun-failed records into the run it reruns, under that run's revision: a --rev naming
  // another would say the results are of code they are not of.
  if (ro.rerun_failed) {
    const auto id = regress::run_to_continue(db, suite, ro);
    const auto rerun = id ? db.run(*id) : std::nullopt;
    // Likewise a --label naming another run: the failures rerun are the newest run's, whatever it says.
    if (rerun && args.count("label") && ro.label != rerun->label) {
      std::cerr << argv[0] << ": --rerun-failed: the newest run of suite '" << suite.name << "' is labelled "
                << rerun->label << ", not '" << ro.label << "'; --rerun-failed reruns the failures of the newest "
                << "run into it: leave --label out, or give that one\n";
      return kExitUsage;
    }
    if (rerun && !regress::rev_matches(rerun->rev, ro.rev)) {
      if (args.count("rev")) {
        std::cerr << argv[0] << ": --rerun-failed: the newest run of suite '" << suite.name << "' ("
                  << rerun->label << ") is at revision " << rerun->rev << ", not '" << ro.rev
                  << "'; its failures are rerun into it: give its --rev, or run the suite at " << ro.rev
                  << " without --rerun-failed\n";
        return kExitUsage;
      }
      std::cerr << argv[0] << ": note: --rerun-failed records into run " << rerun->label << " at revision "
                << rerun->rev << " (this checkout is at " << ro.rev << ")\n";
    }
  }

  // Ctrl-C leaves the run resumable; after the run the reports are written whole (a report cut
  // short by a signal would be a broken file under its own name).
  const StopSignals signals;
  const regress::RunSummary sum = regress::run_suite(suite, ro, db);

  const auto run = db.run(sum.run_id);
  // The run's own revision: --rerun-failed continues a run at the revision it was made at.
  std::cout << "suite " << suite.name << " @ " << (run ? run->rev : ro.rev).substr(0, 12) << " ("
            << (run ? run->label : "?") << "): "
            << sum.counts.done() << " of "
            << std::max<std::int64_t>(static_cast<std::int64_t>(sum.selected), run ? run->planned : 0) << " tests: " << sum.counts.pass << " pass, "
            << sum.counts.fail << " fail, " << sum.counts.error << " error, " << sum.counts.skipped << " skipped; ran "
            << sum.ran << (sum.already_done ? " (" + std::to_string(sum.already_done) + " done earlier)" : "")
            << " in " << std::fixed << std::setprecision(1) << sum.wall_seconds << " s with -j " << ro.jobs << "\n";
  if (!sum.dropped.empty()) {
    std::cout << "run " << (run ? run->label : "?") << ": " << sum.dropped.size()
              << " planned test(s) without a result left its plan, as the suite no longer has them:";
    for (const auto& id : sum.dropped) std::cout << " " << regress::console_text(id);
    std::cout << "\n";
  }
  if (run && !sum.interrupted && run->state != "complete")
    std::cout << "run " << run->label << " is not complete: " << sum.planned_done << " of its " << sum.planned
              << " planned tests have a result; run it again "
              << (run->shard.empty() || !sum.shard_finishes ? "without --tag or --shard"
                                                            : "with --shard " + run->shard + " and without --tag")
              << " to finish it\n";
  for (const auto& r : db.results(sum.run_id))
    if (r.status == "fail" || r.status == "error")
      std::cout << "  " << r.status << "  " << regress::console_text(r.test_id) << ": "
                << regress::console_text(r.message)
                << "\n      reproduce: " << regress::console_text(r.command)
                << "\n      logs: " << regress::console_text(r.log_dir) << "\n";

  std::size_t reports_failed = 0;
  if (!args.count("no-report")) {
    regress::ReportSelection sel;
    sel.run_id = sum.run_id;
    sel.baseline_rev = baseline;
    const regress::ReportData data = regress::load_report_data(db, sel);
    const std::filesystem::path out(ro.out_dir);
    reports_failed = write_reports(data, out, argv[0]);
    std::cout << "results: " << db_path << "\njunit:   " << (out / "junit.xml").string()
              << "\nreport:  " << (out / "report.html").string() << "\n";
    if (data.baseline)
      std::cout << data.regressions.size() << " regression(s) against " << data.baseline->rev.substr(0, 12) << " ("
                << data.baseline->label << "), " << data.compared << " test(s) compared"
                << (data.regressions.empty() ? "" : ": see the top of the report") << "\n";
    if (data.baseline && data.compared == 0) std::cerr << argv[0] << ": warning: " << data.baseline_note << "\n";
  }
  if (sum.interrupted) {
    std::cout << "interrupted: run the same command again to resume\n";
    return kExitStopped;
  }
  const regress::ReportTotals totals =
      regress::report_totals(sum.counts, sum.counts.done(), not_run_count(db, sum.run_id));
  if (totals.fail + totals.error > 0) return kExitFail;
  // A report that could not be written is news only of a run that passed: a failed run keeps its 1.
  return reports_failed > 0 ? kExitUsage : kExitPass;
}

}  // namespace mxc::app
