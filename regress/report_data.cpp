#include "regress/report_data.h"

#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "regress/shard.h"

namespace mxc::regress {

namespace {

using nlohmann::json;

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json run_json(const RunInfo& r) {
  return {{"run_id", r.run_id}, {"suite", r.suite},        {"rev", r.rev},     {"label", r.label},
          {"started_at", r.started_at}, {"finished_at", r.finished_at}, {"state", r.state},
          {"host", r.host},     {"shard", r.shard},        {"planned", r.planned}};
}

// The distinct revisions of `runs` that `given` names (rev_matches), for
// an error when it names more than one: a short prefix taken as the newest
// of several revisions would compare against the wrong run unseen.
void refuse_ambiguous(const std::vector<const RunInfo*>& runs, const std::string& given, const std::string& what) {
  std::set<std::string> revs;
  for (const RunInfo* r : runs)
    if (rev_matches(r->rev, given)) revs.insert(r->rev);
  if (revs.size() < 2) return;
  std::string list;
  for (const auto& r : revs) list += (list.empty() ? "" : ", ") + r.substr(0, 12);
  throw std::runtime_error(what + " '" + given + "' names " + std::to_string(revs.size()) + " revisions (" + list +
                           "): give more of the hash");
}

// What a run's state tells of a planned test without a result.
std::string state_reason(const RunInfo& run) {
  return run.state == "interrupted" ? "not run: the regression was interrupted before it"
         : run.state == "running"   ? "not run yet: the run is in progress (or its runner was killed)"
                                    : "not run: no command on this run ran it";
}

// The shard numbers K of a run's shard list "K/N,...", N in `count`; count 0
// for an unsharded run or a list that is not all of one N.
std::set<std::uint32_t> shards_held(const std::string& list, std::uint32_t& count) {
  std::set<std::uint32_t> held;
  count = 0;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    const auto sh = shard_named(item);
    if (!sh || (count != 0 && sh->count != count)) {
      count = 0;
      return {};
    }
    count = sh->count;
    held.insert(sh->index);
  }
  return held;
}

// Why each test of `not_run` did not run. A test of a merged run whose shard
// (its position in the suite the shards were taken from, modulo N) was
// never merged says so; the others what the run's state tells. A run merged
// before merges kept the shards' suite cannot tell them apart.
std::vector<std::string> not_run_reasons(HistoryDb& db, const RunInfo& run, const std::vector<std::string>& not_run) {
  std::vector<std::string> out(not_run.size(), state_reason(run));
  std::uint32_t count = 0;
  const std::set<std::uint32_t> held = shards_held(run.shard, count);
  if (count == 0 || held.size() == count || not_run.empty()) return out;
  const std::vector<std::string> suite = db.suite_tests(run.run_id);
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < suite.size(); ++i) position.emplace(suite[i], i);
  for (std::size_t i = 0; i < not_run.size(); ++i) {
    const auto it = position.find(not_run[i]);
    if (it == position.end()) continue;
    const auto k = static_cast<std::uint32_t>(it->second % count) + 1;
    if (!held.count(k))
      out[i] = "not run: shard " + std::to_string(k) + "/" + std::to_string(count) + " was never merged";
  }
  return out;
}

// A planned test without a result as a row of the table: an error with its
// reason that made no attempt and measured nothing.
TestRecord not_run_record(const std::string& id, const std::string& why) {
  TestRecord t;
  t.test_id = id;
  t.status = "error";
  t.message = why;
  t.attempts = 0;
  return t;
}

// A row of the table. `not_run`: a not_run_record, whose suite position is
// not known (index null: it has no place of its own in the results).
json test_json(const TestRecord& t, bool not_run) {
  return {{"id", t.test_id},
          {"index", not_run ? json(nullptr) : json(t.test_index)},
          {"status", t.status},
          {"message", t.message},
          {"seed", t.seed},
          {"tags", t.tags},
          {"command", t.command},
          {"exit_code", opt(t.exit_code)},
          {"wall_seconds", not_run ? json(nullptr) : json(t.wall_seconds)},  // a test not run took no time
          {"cycles_rtl", opt(t.cycles_rtl)},
          {"cycles_model", opt(t.cycles_model)},
          {"error_pct", opt(model_error_pct(t))},
          {"speed_cps", opt(sim_speed(t))},
          {"instructions", opt(t.instructions)},
          {"mismatch_count", opt(t.mismatch_count)},
          {"sim_time_ns", opt(t.sim_time_ns)},
          {"utilisation", opt(t.utilisation)},
          {"bandwidth_gbps", opt(t.bandwidth_gbps)},
          {"attempts", t.attempts},
          {"finished_at", t.finished_at},
          {"not_run", not_run}};
}

// The trend's runs, their tests not run among the errors: an interrupted
// night's pass rate counts what it left undone.
json trend_json(const ReportData& d) {
  json trend = json::array();
  for (std::size_t i = 0; i < d.trend_runs.size() && i < d.trend_stats.size(); ++i) {
    const auto& r = d.trend_runs[i];
    const auto& s = d.trend_stats[i];
    const auto count = [](std::int64_t v) { return static_cast<std::size_t>(v); };
    const ReportTotals t = report_totals({count(s.pass), count(s.fail), count(s.error), count(s.skipped)},
                                         count(s.pass + s.fail + s.error + s.skipped), count(s.not_run));
    trend.push_back({{"run_id", r.run_id}, {"label", r.label}, {"rev", r.rev}, {"started_at", r.started_at},
                     {"pass", t.pass}, {"fail", t.fail}, {"error", t.error}, {"skipped", t.skipped},
                     {"not_run", t.not_run}, {"mean_abs_error_pct", opt(s.mean_abs_error_pct)},
                     {"wall_seconds", s.wall_seconds}});
  }
  return trend;
}

// The seed test `t` ran with (ReportData::tests). Read here once for every
// report, so the JUnit file, the CSV and the JSON cannot disagree.
std::string recorded_seed(const TestRecord& t) {
  if (!t.seed.empty() || t.results_json.empty()) return t.seed;
  const json root = json::parse(t.results_json, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) return "";
  const auto it = root.find("seed");
  if (it == root.end()) return "";
  if (it->is_number_unsigned()) return std::to_string(it->get<std::uint64_t>());
  if (it->is_number_integer()) return std::to_string(it->get<std::int64_t>());
  return it->is_string() ? it->get<std::string>() : "";
}

// The reported run's tests: those with a result and those of its plan without one.
std::set<std::string> run_tests(const ReportData& d) {
  std::set<std::string> ids(d.not_run.begin(), d.not_run.end());
  for (const auto& t : d.tests) ids.insert(t.test_id);
  return ids;
}

// How a candidate baseline serves the reported run: how many of its tests it
// has a result for, whether that is all of them, and whether it completed.
struct BaselineFit {
  const RunInfo* run = nullptr;
  std::size_t shared = 0;
  bool covers = false;
  bool complete = false;
  // Covering every test first, then sharing any, then (`rank_complete`) complete; the newest among equals.
  auto rank(bool rank_complete) const { return std::make_tuple(covers, shared > 0, rank_complete && complete); }
};

BaselineFit fit_of(HistoryDb& db, const RunInfo& run, const std::set<std::string>& tests) {
  BaselineFit f;
  f.run = &run;
  const std::set<std::string> done = db.finished_tests(run.run_id);
  for (const auto& id : tests) f.shared += done.count(id);
  f.covers = f.shared == tests.size();
  f.complete = run.state == "complete";
  return f;
}

// The best of `candidates` (newest first) for a run of `tests`: one that
// has a result for each of them leaves none uncompared, and one that has
// none (another tag's or shard's run, an empty interrupted one) compares
// nothing. Stops at the first that covers them and (`rank_complete`) is complete.
BaselineFit best_baseline(HistoryDb& db, const std::vector<const RunInfo*>& candidates,
                          const std::set<std::string>& tests, bool rank_complete) {
  BaselineFit best;
  for (const RunInfo* r : candidates) {
    const BaselineFit f = fit_of(db, *r, tests);
    if (!best.run || f.rank(rank_complete) > best.rank(rank_complete)) best = f;
    if (f.covers && (f.complete || !rank_complete)) break;
  }
  return best;
}

// Sets d's baseline and the regressions against it; `compared` counts the
// run's tests that the baseline has a result for.
void compare_with(HistoryDb& db, ReportData& d, const RunInfo& base, const Thresholds& thresholds) {
  const std::vector<TestRecord> results = db.results(base.run_id);
  std::set<std::string> in_base;
  for (const auto& r : results) in_base.insert(r.test_id);
  d.baseline = base;
  d.compared = 0;
  for (const auto& id : run_tests(d)) d.compared += in_base.count(id);
  if (d.compared == 0)
    d.baseline_note = "no test of this run has a result in the baseline: nothing was compared";
  d.regressions = find_regressions(results, d.tests, thresholds, d.not_run);
}

// The baseline: of the suite's runs at --baseline REV, the one that has a
// result for every test of the reported run, else for any, a complete run
// before an interrupted one, the newest among equals. Without it, the
// newest earlier run with a result for every test of the reported run, else
// the newest earlier one with a result for any.
void choose_baseline(HistoryDb& db, const std::vector<RunInfo>& runs, const ReportSelection& sel, ReportData& d) {
  const bool named = !sel.baseline_rev.empty();
  const auto earlier = [&](const RunInfo& r) {
    return std::make_pair(r.started_at, r.run_id) < std::make_pair(d.run.started_at, d.run.run_id);
  };
  std::vector<const RunInfo*> others;  // the suite's other runs, newest first
  for (auto it = runs.rbegin(); it != runs.rend(); ++it)
    if (it->suite == d.run.suite && it->run_id != d.run.run_id) others.push_back(&*it);
  if (named) refuse_ambiguous(others, sel.baseline_rev, "--baseline");
  std::vector<const RunInfo*> candidates;
  for (const RunInfo* r : others)
    if (named ? rev_matches(r->rev, sel.baseline_rev) : earlier(*r)) candidates.push_back(r);
  const BaselineFit best = best_baseline(db, candidates, run_tests(d), named);
  if (best.run && (named || best.shared > 0)) {
    compare_with(db, d, *best.run, sel.thresholds);
  } else if (named) {
    // A named baseline that is not there is a mistake, not "no regressions".
    throw std::runtime_error("--baseline '" + sel.baseline_rev + "': results database '" + db.path() +
                             "' has no other run of suite '" + d.run.suite + "' at that revision");
  } else {
    d.baseline_note = candidates.empty() ? "no earlier run of this suite in the database"
                                         : "no earlier run of this suite has a result for any of this run's tests";
  }
}

}  // namespace

ReportTotals report_totals(const Counts& counts, std::size_t results, std::size_t not_run) {
  ReportTotals t;
  t.total = results + not_run;
  t.pass = counts.pass;
  t.fail = counts.fail;
  t.error = counts.error + not_run;
  t.skipped = counts.skipped;
  t.not_run = not_run;
  return t;
}

ReportTotals report_totals(const ReportData& d) {
  return report_totals(d.counts, d.tests.size(), d.not_run.size());
}

std::string not_run_reason(const ReportData& d, std::size_t i) {
  return i < d.not_run_why.size() ? d.not_run_why[i] : state_reason(d.run);
}

ReportData load_report_data(HistoryDb& db, const ReportSelection& sel) {
  const auto runs = db.runs();
  ReportData d;
  const RunInfo* chosen = nullptr;
  std::vector<const RunInfo*> candidates;  // of the suite and label asked for, any revision
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    if (sel.run_id) {
      if (it->run_id == *sel.run_id && !chosen) chosen = &*it;
      continue;
    }
    if ((sel.suite.empty() || it->suite == sel.suite) && (sel.label.empty() || it->label == sel.label)) {
      candidates.push_back(&*it);
      if (!chosen && (sel.rev.empty() || rev_matches(it->rev, sel.rev))) chosen = &*it;
    }
  }
  if (!sel.run_id && !sel.rev.empty()) refuse_ambiguous(candidates, sel.rev, "--rev");
  if (!chosen)
    throw std::runtime_error("results database '" + db.path() + "' has no run" +
                             (sel.run_id ? " with id " + std::to_string(*sel.run_id) : std::string()) +
                             (sel.suite.empty() || sel.run_id ? std::string() : " of suite '" + sel.suite + "'") +
                             (sel.rev.empty() || sel.run_id ? std::string() : " at revision '" + sel.rev + "'") +
                             (sel.label.empty() || sel.run_id ? std::string() : " labelled '" + sel.label + "'"));
  d.run = *chosen;
  d.tests = db.results(d.run.run_id);
  for (auto& t : d.tests) t.seed = recorded_seed(t);
  for (const auto& t : d.tests) d.counts.add(t.status);
  std::set<std::string> done;
  for (const auto& t : d.tests) done.insert(t.test_id);
  for (const std::string& id : db.plan_in_order(d.run.run_id))
    if (!done.count(id)) d.not_run.push_back(id);
  d.not_run_why = not_run_reasons(db, d.run, d.not_run);

  choose_baseline(db, runs, sel, d);
  for (const auto& r : runs)
    if (r.suite == d.run.suite) d.trend_runs.push_back(r);
  d.trend_stats = db.run_stats(d.run.suite);
  return d;
}

bool rev_matches(const std::string& stored, const std::string& given) {
  // As git takes a revision: the whole hash or its start (the reports print 12 characters).
  return stored == given ||
         (given.size() >= 4 && stored.size() > given.size() && stored.compare(0, given.size(), given) == 0);
}

bool has_run_at(HistoryDb& db, const std::string& suite, const std::string& rev,
                std::optional<std::int64_t> other_than) {
  const auto runs = db.runs();
  std::vector<const RunInfo*> others;
  for (const auto& r : runs)
    if (r.suite == suite && r.run_id != other_than) others.push_back(&r);
  refuse_ambiguous(others, rev, "--baseline");
  for (const RunInfo* r : others)
    if (rev_matches(r->rev, rev)) return true;
  return false;
}

json to_json(const ReportData& d) {
  json j;
  j["format"] = "mxcosim-report";
  j["format_version"] = 1;
  j["run"] = run_json(d.run);
  j["baseline"] = d.baseline ? run_json(*d.baseline) : json(nullptr);
  j["baseline_note"] = d.baseline_note;
  j["baseline_compared"] = d.compared;
  const ReportTotals n = report_totals(d);
  j["summary"] = {{"total", n.total},     {"pass", n.pass},           {"fail", n.fail},      {"error", n.error},
                  {"skipped", n.skipped}, {"planned", d.run.planned}, {"not_run", n.not_run}};
  auto& regs = j["regressions"] = json::array();
  for (const auto& r : d.regressions)
    regs.push_back({{"test", r.test_id}, {"what", r.what}, {"baseline", r.baseline}, {"current", r.current}});
  auto& tests = j["tests"] = json::array();
  for (const auto& t : d.tests) tests.push_back(test_json(t, false));
  for (std::size_t i = 0; i < d.not_run.size(); ++i)
    tests.push_back(test_json(not_run_record(d.not_run[i], not_run_reason(d, i)), true));
  j["trend"] = trend_json(d);
  return j;
}

}  // namespace mxc::regress
