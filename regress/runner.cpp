#include "regress/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

#include "regress/outcome.h"
#include "regress/result_reader.h"
#include "regress/subprocess.h"

namespace mxc::regress {

namespace fs = std::filesystem;

namespace {

struct Running {
  const TestSpec* spec;
  std::size_t index;
  fs::path dir;
  std::vector<std::string> command;
  std::unique_ptr<Subprocess> process;
};

// A test that ended by what a shutdown sends every process (Slurm's scancel
// and time limit, systemd and container stops): it died of the signal, or
// caught it and exited 130 (`mxcosim run`, `hbm` and `ici` stop so, keeping
// their results). The runner itself only ever kills its tests with SIGKILL.
bool shutdown_signal(const ProcessOutcome& o) {
  if (o.kind == ProcessOutcome::Kind::exited) return o.exit_code == kExitStoppedBySignal;
  return o.kind == ProcessOutcome::Kind::signaled && (o.signal == SIGTERM || o.signal == SIGINT || o.signal == SIGHUP);
}

// A test that ended by a shutdown's signal, its verdict held until the
// runner's own stop comes or the grace period passes without one.
struct Held {
  Running test;
  ProcessOutcome outcome;
  std::chrono::steady_clock::time_point since;
};

// RunnerOptions::image, open while the run lasts. The tests exec it by the
// path of this process's descriptor of it, which names the file opened
// whatever has taken its place since.
class Image {
 public:
  explicit Image(const std::string& path) {
    if (path.empty()) return;
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0)
      throw std::runtime_error("cannot open '" + path + "' to run the tests with it: " + std::strerror(errno));
    m_path = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(m_fd);
  }
  ~Image() {
    if (m_fd >= 0) ::close(m_fd);
  }
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;
  /// What to exec; "" for the test's argv[0].
  const std::string& path() const { return m_path; }

 private:
  int m_fd = -1;
  std::string m_path;
};

// The end of a log, where the verdict's last line is: a log may be as large
// as the limit allows, and nothing before its end is needed.
std::string read_tail(const fs::path& p, std::size_t bytes = 64 << 10) {
  std::ifstream in(p, std::ios::binary);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size <= 0) return "";
  const std::streamoff from = std::max<std::streamoff>(0, size - static_cast<std::streamoff>(bytes));
  in.seekg(from);
  std::string text(static_cast<std::size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

std::string join_tags(const std::vector<std::string>& tags) {
  std::string out;
  for (const auto& t : tags) out += (out.empty() ? "" : ",") + t;
  return out;
}

// The reproduce command names `mxcosim` as a user would type it.
std::vector<std::string> reproduce_args(const TestSpec& t) {
  std::vector<std::string> a{"mxcosim"};
  a.insert(a.end(), t.args.begin(), t.args.end());
  return a;
}

// The commands that write their --json results whenever they exit 0: one of
// them that exits 0 without a readable file did not finish its run.
bool writes_results(const TestSpec& t) {
  return !t.args.empty() && (t.args.front() == "run" || t.args.front() == "hbm" || t.args.front() == "ici" ||
                             t.args.front() == "model");
}

// The newest run of the suite at any revision (the one --rerun-failed continues).
std::optional<std::int64_t> latest_run_of(HistoryDb& db, const std::string& suite) {
  const auto runs = db.runs();
  for (auto it = runs.rbegin(); it != runs.rend(); ++it)
    if (it->suite == suite) return it->run_id;
  return std::nullopt;
}

// Tests to run again under --rerun-failed: those whose result in the newest
// run of the suite at any revision was neither pass nor skipped.
std::set<std::string> failed_in_latest_run(HistoryDb& db, const std::string& suite, std::int64_t& run_id) {
  const auto latest = latest_run_of(db, suite);
  if (!latest) throw std::runtime_error("--rerun-failed: the database has no earlier run of suite '" + suite + "'");
  run_id = *latest;
  std::set<std::string> failed;
  for (const auto& r : db.results(run_id))
    if (r.status != "pass" && r.status != "skipped") failed.insert(r.test_id);
  return failed;
}

// A label the runner gives when --label is not: "YYYY-MM-DD", or with ".N"
// for a repeated run.
bool default_label(const std::string& label) {
  const auto digits = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
      if (label[i] < '0' || label[i] > '9') return false;
    return to > from;
  };
  if (label.size() < 10 || !digits(0, 4) || label[4] != '-' || !digits(5, 7) || label[7] != '-' || !digits(8, 10))
    return false;
  return label.size() == 10 || (label[10] == '.' && digits(11, label.size()));
}

// The key of the run a command without --rerun-failed records into. Without
// --label it is the newest unfinished run of the suite, revision and shard
// that has a date label, whatever the date: a run interrupted before 00:00
// UTC is continued by the same command after it. Else today's UTC date.
RunInfo run_key(HistoryDb& db, const Suite& suite, const RunnerOptions& opts) {
  RunInfo key;
  key.suite = suite.name;
  key.rev = opts.rev;
  key.label = opts.label.empty() ? utc_now().substr(0, 10) : opts.label;
  key.host = opts.host;
  key.shard = opts.shard ? opts.shard->to_string() : "";
  if (!opts.label.empty()) return key;
  const auto runs = db.runs();
  for (auto it = runs.rbegin(); it != runs.rend(); ++it)
    if (it->suite == key.suite && it->rev == key.rev && it->shard == key.shard && it->state != "complete" &&
        default_label(it->label)) {
      key.label = it->label;
      break;
    }
  return key;
}

// Tests of the run's plan that the suite no longer has and that have no
// result: no command could finish the run with them in it, so they leave
// the plan. In plan order.
std::vector<std::string> drop_lost_tests(HistoryDb& db, std::int64_t run_id, const Suite& suite) {
  std::set<std::string> ids;
  for (const auto& t : suite.tests) ids.insert(t.id);
  const std::set<std::string> finished = db.finished_tests(run_id);
  std::vector<std::string> lost;
  for (const auto& id : db.plan_in_order(run_id))
    if (!ids.count(id) && !finished.count(id)) lost.push_back(id);
  if (!lost.empty()) db.remove_from_plan(run_id, lost);
  return lost;
}

// Adds the command's tests to the run's plan. The run takes the command's
// shard when the command selected its whole plan so far (a fresh run, or a
// shard's run resumed over the whole suite). A run recorded before plans
// were kept has only its count, which resuming never lowers.
void plan_run(HistoryDb& db, std::int64_t run_id, const std::vector<TestSpec>& selected, const std::string& shard) {
  const RunInfo run = *db.run(run_id);
  const std::set<std::string> plan = db.planned_tests(run_id);
  if (plan.empty() && run.planned > 0) {
    if (static_cast<std::int64_t>(selected.size()) > run.planned)
      db.set_run_planned(run_id, static_cast<std::int64_t>(selected.size()), shard);
    return;
  }
  std::set<std::string> ids;
  std::vector<std::string> in_order;  // the plan keeps the suite's order, which the reports show
  for (const auto& t : selected) {
    ids.insert(t.id);
    in_order.push_back(t.id);
  }
  const bool covers = std::includes(ids.begin(), ids.end(), plan.begin(), plan.end());
  db.add_to_plan(run_id, in_order, covers ? shard : run.shard);
}

// Complete when no test was stopped and every test of the run's plan has a
// result. A run recorded before plans were kept is complete when a command
// selecting at least its planned count finds every selected test done.
// Unless failures are rerun, the command must also have the run's shard.
bool run_complete(const RunInfo& run, const std::set<std::string>& plan, const std::set<std::string>& finished,
                  const RunSummary& sum, const std::vector<TestSpec>& selected, const RunnerOptions& opts) {
  bool complete = !sum.interrupted;
  for (const auto& t : selected) complete = complete && finished.count(t.id) > 0;
  if (!plan.empty())
    complete = complete && std::includes(finished.begin(), finished.end(), plan.begin(), plan.end());
  else
    complete = complete && finished.size() >= sum.selected &&
               (opts.rerun_failed || sum.selected >= run.planned_count());
  if (!opts.rerun_failed) complete = complete && run.shard == (opts.shard ? opts.shard->to_string() : "");
  return complete;
}

// The tests of the run's shard (the whole suite for an unsharded run);
// nullopt when its shard is not one this suite's shards are (a merged list).
std::optional<std::set<std::string>> shard_tests(const Suite& suite, const RunInfo& run) {
  std::vector<TestSpec> tests = suite.tests;
  if (!run.shard.empty()) {
    const auto shard = shard_named(run.shard);
    if (!shard) return std::nullopt;
    tests = select_shard(suite.tests, *shard);
  }
  std::set<std::string> ids;
  for (const auto& t : tests) ids.insert(t.id);
  return ids;
}

// The plan's size and how many of its tests have a result; a run recorded
// before plans were kept counts the results of its shard's tests, up to its
// planned count. Also whether running the run's shard again without --tag
// would finish it: it selects every planned test still without a result.
void count_plan(const Suite& suite, const RunInfo& run, const std::set<std::string>& plan,
                const std::set<std::string>& finished, RunSummary& sum) {
  const auto in_shard = shard_tests(suite, run);
  sum.shard_finishes = in_shard.has_value();
  if (plan.empty()) {
    sum.planned = run.planned_count();
    std::size_t done = finished.size();
    if (in_shard) done = static_cast<std::size_t>(std::count_if(
                      finished.begin(), finished.end(), [&](const std::string& id) { return in_shard->count(id); }));
    sum.planned_done = std::min(done, sum.planned);
    return;
  }
  sum.planned = plan.size();
  sum.planned_done = 0;
  for (const auto& id : plan) {
    const bool done = finished.count(id) > 0;
    sum.planned_done += done;
    if (!done && in_shard && !in_shard->count(id)) sum.shard_finishes = false;
  }
}

// The tests' folder, each selected test's folder in it and the folder of
// earlier runs' logs are folders or not there yet: a file in the place of
// one would stop the run at that test (or make every test of a repeated run
// an error), with the run recorded and the tests after it not run.
void check_test_dirs(const fs::path& tests_dir, const fs::path& runs_dir, const std::vector<TestSpec>& tests) {
  std::error_code ec;
  if (fs::exists(tests_dir, ec) && !fs::is_directory(tests_dir, ec))
    throw std::invalid_argument("'" + tests_dir.string() + "' (the tests' log folders go there) is not a folder");
  if (fs::exists(runs_dir, ec) && !fs::is_directory(runs_dir, ec))
    throw std::invalid_argument("'" + runs_dir.string() + "' (earlier runs' log folders go there) is not a folder");
  for (const auto& t : tests) {
    const fs::path dir = tests_dir / test_dir_name(t.id);
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
      throw std::invalid_argument("'" + dir.string() + "' (the log folder of test '" + t.id + "') is not a folder");
  }
}

// A test's folder holds the logs of the last run of it. Before another run
// writes there, they move to runs/<run id>/<folder>, and that run's results
// follow them, so its reports still point at its own logs.
void keep_earlier_logs(HistoryDb& db, std::int64_t run_id, const fs::path& dir, const fs::path& runs_dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  const auto earlier = db.run_with_logs_in(dir.string(), run_id);
  if (!earlier) return;
  const fs::path to = runs_dir / std::to_string(*earlier) / dir.filename();
  fs::create_directories(to.parent_path());
  fs::remove_all(to);  // left by a move that did not reach the database
  fs::rename(dir, to);
  db.move_logs(*earlier, dir.string(), to.string());
}

// What result.txt of a kept attempt says: the result the attempt got, or none.
std::string attempt_text(const TestRecord* earlier) {
  if (!earlier) return "no result recorded: its runner stopped (or was killed) before this attempt ended\n";
  return "status: " + earlier->status + "\nmessage: " + earlier->message + "\nfinished_at: " + earlier->finished_at +
         "\nattempt: " + std::to_string(earlier->attempts) + "\n";
}

// What is left in the test's folder once other runs' logs moved out is an
// earlier attempt of this run (a failure rerun, or one a killed runner left
// without a result). It moves to runs/<run id>/<folder>@attempt-N, N from 1
// ('@' is in no test's folder name), with its result in result.txt: each
// attempt starts in an empty folder, with no file of the one before (a
// failure waveform) beside its logs.
void keep_earlier_attempt(HistoryDb& db, std::int64_t run_id, const fs::path& dir, const fs::path& runs_dir,
                          const TestRecord* earlier) {
  std::error_code ec;
  const fs::path base = runs_dir / std::to_string(run_id);
  // The attempt is in the test's folder, or already under runs/<run id>/<folder>: a run of another
  // suite with the same test ids took the folder since, and moved it there (where the next such
  // move, of this attempt's logs, would have replaced it).
  fs::path from = dir;
  if (!fs::exists(dir, ec) || fs::is_empty(dir, ec)) from = base / dir.filename();
  if (!fs::exists(from, ec) || fs::is_empty(from, ec)) return;
  fs::create_directories(base);
  fs::path to;
  for (int n = 1;; ++n) {
    to = base / (dir.filename().string() + "@attempt-" + std::to_string(n));
    if (!fs::exists(to, ec)) break;
  }
  fs::rename(from, to);
  // The earlier result points at its logs until the new attempt's replaces it.
  db.move_logs(run_id, from.string(), to.string());
  std::ofstream(to / "result.txt") << attempt_text(earlier);
}

// The test's folder, made empty: its earlier run's logs and this run's
// earlier attempt moved aside.
void prepare_test_dir(HistoryDb& db, std::int64_t run_id, const fs::path& dir, const fs::path& runs_dir,
                      const TestRecord* earlier) {
  keep_earlier_logs(db, run_id, dir, runs_dir);
  keep_earlier_attempt(db, run_id, dir, runs_dir, earlier);
  fs::create_directories(dir);
}

// A run continued with a suite edited since (same ids, other arguments)
// would hold results of two suites under one run, at one revision, without
// a word: refused, naming the first test whose command changed.
void refuse_edited_tests(HistoryDb& db, std::int64_t run_id, const Suite& suite, const RunnerOptions& opts) {
  std::map<std::string, const TestSpec*> by_id;
  for (const auto& t : suite.tests) by_id.emplace(t.id, &t);
  const auto run = db.run(run_id);
  for (const auto& r : db.results(run_id)) {
    const auto it = by_id.find(r.test_id);
    if (it == by_id.end() || r.command.empty()) continue;  // a result from before commands were kept
    const std::string now = shell_join(reproduce_args(*it->second));
    if (now == r.command) continue;
    throw std::invalid_argument(
        suite.path + ": test '" + r.test_id + "' is now '" + now + "', but run " + (run ? run->label : "?") +
        " recorded its result as '" + r.command + "': the suite changed since, and continuing the run would mix the "
        "results of both in it; " +
        (opts.rerun_failed ? "run the suite without --rerun-failed" : "run it under another --label") +
        ", or restore the suite");
  }
}

}  // namespace

std::string test_dir_name(const std::string& test_id) {
  std::string out;
  bool plain = test_id != "." && test_id != "..";
  for (std::size_t i = 0; i < test_id.size(); ++i) {
    const char c = test_id[i];
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.' || c == '=' || c == ',' || c == '+';
    if (!safe && c != '/') plain = false;
    // "__" is how '/' is written, so an '_' beside another or beside a '/'
    // could be read back two ways.
    const char next = i + 1 < test_id.size() ? test_id[i + 1] : '\0';
    if (c == '_' && (next == '_' || next == '/')) plain = false;
    if (c == '/' && next == '_') plain = false;
    out += c == '/' ? std::string("__") : safe ? std::string(1, c) : std::string("_");
  }
  // A file name may have 255 bytes: a longer id (several sweep axes, a
  // config path) is cut, and the hash tells the cut ones apart.
  constexpr std::size_t kMaxName = 200, kHashLength = 9;
  if (plain && out.size() <= kMaxName) return out;
  // FNV-1a of the id: deterministic, so a resumed run finds the same folder.
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : test_id) h = (h ^ c) * 0x100000001b3ull;
  static const char* const kHex = "0123456789abcdef";
  h ^= h >> 32;
  if (out.size() > kMaxName - kHashLength) out.resize(kMaxName - kHashLength);
  out += '~';
  for (int shift = 28; shift >= 0; shift -= 4) out += kHex[(h >> shift) & 0xf];
  return out;
}

std::vector<TestSpec> select_tests(const Suite& suite, const std::string& tag, const std::optional<Shard>& shard) {
  std::vector<TestSpec> selected = filter_by_tag(suite.tests, tag);
  if (selected.empty())
    throw std::invalid_argument("--tag '" + tag + "': no test of suite '" + suite.name + "' carries it");
  if (shard) {
    selected = select_shard(selected, *shard);
    if (selected.empty())
      throw std::invalid_argument("--shard " + shard->to_string() + ": no test falls in it (" +
                                  std::to_string(filter_by_tag(suite.tests, tag).size()) + " tests selected" +
                                  (tag.empty() ? "" : " by --tag '" + tag + "'") + ")");
  }
  return selected;
}

RunSummary run_suite(const Suite& suite, const RunnerOptions& opts, HistoryDb& db) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<TestSpec> selected = select_tests(suite, opts.tag, opts.shard);
  // Suite order is the key for reports: remember each test's position.
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < suite.tests.size(); ++i) position[suite.tests[i].id] = i;
  // Two tests sharing a folder would overwrite each other's logs and read
  // each other's results.
  std::map<std::string, std::string> dir_of;
  for (const auto& t : suite.tests)
    if (const auto [it, fresh] = dir_of.emplace(test_dir_name(t.id), t.id); !fresh)
      throw std::invalid_argument(suite.path + ": tests '" + it->second + "' and '" + t.id +
                                  "' would share the log folder '" + it->first + "'");
  const fs::path tests_dir = fs::path(opts.out_dir) / "tests", runs_dir = fs::path(opts.out_dir) / "runs";
  check_test_dirs(tests_dir, runs_dir, selected);
  if (const auto earlier = run_to_continue(db, suite, opts)) refuse_edited_tests(db, *earlier, suite, opts);

  RunSummary sum;
  sum.selected = selected.size();
  std::set<std::string> done;
  if (opts.rerun_failed) {
    const auto failed = failed_in_latest_run(db, suite.name, sum.run_id);
    sum.resumed = true;
    db.set_run_state(sum.run_id, "running", "");
    std::vector<TestSpec> keep;
    for (auto& t : selected)
      if (failed.count(t.id)) keep.push_back(t);
    sum.already_done = selected.size() - keep.size();
    selected = std::move(keep);
  } else {
    const RunInfo key = run_key(db, suite, opts);
    sum.run_id = db.open_run(key, sum.resumed);
    if (sum.resumed) sum.dropped = drop_lost_tests(db, sum.run_id, suite);
    // A resumed run keeps its plan and adds this command's tests to it: a
    // narrower or another --tag or --shard runs its tests but leaves the
    // others due.
    plan_run(db, sum.run_id, selected, key.shard);
    // A shard's run also keeps the tests its shard was taken from: a merge
    // of the shards' databases plans those of a shard never merged.
    if (opts.shard) {
      std::vector<std::string> whole;
      for (const auto& t : filter_by_tag(suite.tests, opts.tag)) whole.push_back(t.id);
      db.add_suite_tests(sum.run_id, whole);
    }
    done = db.finished_tests(sum.run_id);
  }

  std::deque<const TestSpec*> queue;
  std::set<std::string> queued;
  for (const auto& t : selected) {
    if (done.count(t.id)) {
      ++sum.already_done;
    } else {
      queue.push_back(&t);
      queued.insert(t.id);
    }
  }
  // The run's results so far count as done, but those of the failures rerun now: their new results will.
  const std::vector<TestRecord> results = db.results(sum.run_id);
  const auto counted = [&](const TestRecord& r) { return !opts.rerun_failed || !queued.count(r.test_id); };
  std::map<std::string, const TestRecord*> rerun;  // the earlier result of each test rerun
  for (const auto& r : results) {
    if (counted(r)) sum.counts.add(r.status);
    else rerun.emplace(r.test_id, &r);
  }

  // Made once the counting is done: its clock times the tests' ETA.
  Progress progress(sum.counts.done() + queue.size(), opts.progress, stderr, sum.counts);
  progress.start(queue.size(), std::max(1u, opts.jobs), opts.out_dir);

  fs::create_directories(tests_dir);
  const Image image(opts.image);
  std::vector<Running> running;
  const unsigned jobs = std::max(1u, opts.jobs);

  // A test whose folder or files cannot be made is that test's error: the
  // tests after it still run and the run still gets its reports.
  auto setup_failed = [&](const TestSpec* t, const fs::path& dir, const std::string& why) {
    TestRecord rec;
    rec.test_id = t->id;
    rec.test_index = static_cast<std::int64_t>(position.count(t->id) ? position[t->id] : 0);
    rec.seed = t->seed;
    rec.tags = join_tags(t->tags);
    rec.command = shell_join(reproduce_args(*t));
    rec.log_dir = dir.string();
    rec.status = "error";
    rec.message = short_message("cannot set up the test's folder: " + why);
    rec.finished_at = utc_now();
    db.record(sum.run_id, rec);
    ++sum.ran;
    sum.counts.add(rec.status);
    progress.test_finished(rec.test_id, rec.status, rec.message, 0);
  };

  auto launch = [&](const TestSpec* t) {
    Running r;
    r.spec = t;
    r.index = position.count(t->id) ? position[t->id] : 0;
    r.dir = tests_dir / test_dir_name(t->id);
    try {
      const auto earlier = rerun.find(t->id);
      prepare_test_dir(db, sum.run_id, r.dir, runs_dir, earlier == rerun.end() ? nullptr : earlier->second);
    } catch (const std::exception& e) {
      setup_failed(t, r.dir, e.what());
      return;
    }
    r.command = {opts.executable};
    r.command.insert(r.command.end(), t->args.begin(), t->args.end());
    if (opts.one_thread_per_run && !t->args.empty() && t->args.front() == "run" &&
        std::find(t->args.begin(), t->args.end(), "--threads") == t->args.end()) {
      r.command.push_back("--threads");
      r.command.push_back("1");
    }
    r.command.push_back("--json");
    r.command.push_back((r.dir / "results.json").string());
    const double timeout = opts.timeout_seconds.value_or(t->timeout_seconds);
    {
      std::ofstream cmd(r.dir / "command.txt");
      cmd << shell_join(r.command) << "\n";
    }
    r.process = std::make_unique<Subprocess>(r.command, (r.dir / "stdout.log").string(),
                                             (r.dir / "stderr.log").string(), timeout, opts.max_log_bytes,
                                             image.path());
    progress.test_started(t->id);
    running.push_back(std::move(r));
  };

  auto finish = [&](Running& r, const ProcessOutcome& outcome) {
    TestRecord rec;
    rec.test_id = r.spec->id;
    rec.test_index = static_cast<std::int64_t>(r.index);
    rec.seed = r.spec->seed;
    rec.tags = join_tags(r.spec->tags);
    rec.command = shell_join(reproduce_args(*r.spec));
    rec.wall_seconds = outcome.wall_seconds;
    rec.log_dir = r.dir.string();
    // Set whenever it exited, a log past the limit found afterwards included.
    if (outcome.exit_code >= 0) rec.exit_code = outcome.exit_code;
    const ResultsFile results = read_results_file((r.dir / "results.json").string(), rec);
    const Verdict v = decide(outcome, results, read_tail(r.dir / "stderr.log"), r.spec->expect_fail,
                             opts.timeout_seconds.value_or(r.spec->timeout_seconds), writes_results(*r.spec),
                             injected_fault(r.spec->args));
    rec.status = v.status;
    rec.message = v.message;
    rec.finished_at = utc_now();
    db.record(sum.run_id, rec);
    ++sum.ran;
    sum.counts.add(rec.status);
    progress.test_finished(rec.test_id, rec.status, rec.message, rec.wall_seconds);
  };

  // Tests that ended by a shutdown's signal: recorded once the grace period
  // passes with no stop, dropped (left to run again) when the stop comes.
  std::vector<Held> held;
  auto collect_ended = [&] {
    bool any = false;
    for (std::size_t i = 0; i < running.size();) {
      if (auto outcome = running[i].process->poll()) {
        if (shutdown_signal(*outcome))
          held.push_back({std::move(running[i]), *outcome, std::chrono::steady_clock::now()});
        else
          finish(running[i], *outcome);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        any = true;
      } else {
        ++i;
      }
    }
    return any;
  };
  auto release_held = [&] {
    bool any = false;
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < held.size();) {
      if (std::chrono::duration<double>(now - held[i].since).count() >= opts.shutdown_grace_seconds) {
        finish(held[i].test, held[i].outcome);
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
        any = true;
      } else {
        ++i;
      }
    }
    return any;
  };

  while (!queue.empty() || !running.empty() || !held.empty()) {
    if (opts.stop && opts.stop->load()) {
      for (auto& r : running) r.process->kill_now();
      running.clear();
      held.clear();
      sum.interrupted = true;
      break;
    }
    while (running.size() < jobs && !queue.empty()) {
      launch(queue.front());
      queue.pop_front();
    }
    const bool ended = collect_ended();
    if (!release_held() && !ended) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    progress.tick();
  }
  progress.finish();
  // A failure whose rerun a stop cut short keeps its earlier result in the run: count what the run
  // holds, as the reports read it (it said "0 of 2 tests" and then listed 2 failures).
  if (opts.rerun_failed && sum.interrupted) {
    sum.counts = Counts{};
    for (const TestRecord& r : db.results(sum.run_id)) sum.counts.add(r.status);
  }

  const RunInfo run = *db.run(sum.run_id);
  const std::set<std::string> plan = db.planned_tests(sum.run_id);
  const std::set<std::string> finished = db.finished_tests(sum.run_id);
  count_plan(suite, run, plan, finished, sum);
  const bool complete = run_complete(run, plan, finished, sum, selected, opts);
  db.set_run_state(sum.run_id, complete ? "complete" : "interrupted", utc_now());
  sum.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return sum;
}

std::optional<std::int64_t> run_to_continue(HistoryDb& db, const Suite& suite, const RunnerOptions& opts) {
  if (opts.rerun_failed) return latest_run_of(db, suite.name);
  if (const auto run = db.resumable_run(run_key(db, suite, opts))) return run->run_id;
  return std::nullopt;
}

std::optional<RunInfo> run_to_repeat(HistoryDb& db, const Suite& suite, const RunnerOptions& opts) {
  if (opts.rerun_failed) return std::nullopt;
  const RunInfo key = run_key(db, suite, opts);
  std::string fresh;
  if (db.resumable_run(key, &fresh) || fresh == key.label) return std::nullopt;
  return db.find_run(key.suite, key.rev, key.label);
}

}  // namespace mxc::regress
