#include "regress/report_data.h"

#include <set>

#include <stdexcept>

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

}  // namespace

ReportData load_report_data(HistoryDb& db, const ReportSelection& sel) {
  const auto runs = db.runs();
  ReportData d;
  const RunInfo* chosen = nullptr;
  for (auto it = runs.rbegin(); it != runs.rend() && !chosen; ++it) {
    if (sel.run_id) {
      if (it->run_id == *sel.run_id) chosen = &*it;
      continue;
    }
    if ((sel.suite.empty() || it->suite == sel.suite) && (sel.rev.empty() || it->rev == sel.rev) &&
        (sel.label.empty() || it->label == sel.label))
      chosen = &*it;
  }
  if (!chosen)
    throw std::runtime_error("results database '" + db.path() + "' has no run" +
                             (sel.run_id ? " with id " + std::to_string(*sel.run_id) : std::string()) +
                             (sel.suite.empty() || sel.run_id ? std::string() : " of suite '" + sel.suite + "'") +
                             (sel.rev.empty() || sel.run_id ? std::string() : " at revision '" + sel.rev + "'") +
                             (sel.label.empty() || sel.run_id ? std::string() : " labelled '" + sel.label + "'"));
  d.run = *chosen;
  d.tests = db.results(d.run.run_id);
  for (const auto& t : d.tests) d.counts.add(t.status);
  std::set<std::string> done;
  for (const auto& t : d.tests) done.insert(t.test_id);
  for (const std::string& id : db.planned_tests(d.run.run_id))
    if (!done.count(id)) d.not_run.push_back(id);

  // Baseline: the newest other run of the suite at the chosen revision, or
  // else the run just before the chosen one.
  const RunInfo* base = nullptr;
  for (auto it = runs.rbegin(); it != runs.rend() && !base; ++it) {
    if (it->suite != d.run.suite || it->run_id == d.run.run_id) continue;
    if (!sel.baseline_rev.empty()) {
      if (rev_matches(it->rev, sel.baseline_rev)) base = &*it;
    } else if (std::make_pair(it->started_at, it->run_id) < std::make_pair(d.run.started_at, d.run.run_id)) {
      base = &*it;
    }
  }
  if (base) {
    d.baseline = *base;
    d.regressions = find_regressions(db.results(base->run_id), d.tests, sel.thresholds);
  } else if (!sel.baseline_rev.empty()) {
    // A named baseline that is not there is a mistake, not "no regressions".
    throw std::runtime_error("--baseline '" + sel.baseline_rev + "': results database '" + db.path() +
                             "' has no other run of suite '" + d.run.suite + "' at that revision");
  } else {
    d.baseline_note = "no earlier run of this suite in the database";
  }
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

bool has_run_at(HistoryDb& db, const std::string& suite, const std::string& rev) {
  for (const auto& r : db.runs())
    if (r.suite == suite && rev_matches(r.rev, rev)) return true;
  return false;
}

json to_json(const ReportData& d) {
  json j;
  j["format"] = "mxcosim-report";
  j["format_version"] = 1;
  j["run"] = run_json(d.run);
  j["baseline"] = d.baseline ? run_json(*d.baseline) : json(nullptr);
  j["baseline_note"] = d.baseline_note;
  j["summary"] = {{"total", d.tests.size()}, {"pass", d.counts.pass},     {"fail", d.counts.fail},
                  {"error", d.counts.error}, {"skipped", d.counts.skipped}, {"planned", d.run.planned}};
  auto& regs = j["regressions"] = json::array();
  for (const auto& r : d.regressions)
    regs.push_back({{"test", r.test_id}, {"what", r.what}, {"baseline", r.baseline}, {"current", r.current}});
  auto& tests = j["tests"] = json::array();
  for (const auto& t : d.tests) {
    tests.push_back({{"id", t.test_id},
                     {"index", t.test_index},
                     {"status", t.status},
                     {"message", t.message},
                     {"seed", t.seed},
                     {"tags", t.tags},
                     {"command", t.command},
                     {"exit_code", opt(t.exit_code)},
                     {"wall_seconds", t.wall_seconds},
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
                     {"finished_at", t.finished_at}});
  }
  auto& trend = j["trend"] = json::array();
  for (std::size_t i = 0; i < d.trend_runs.size() && i < d.trend_stats.size(); ++i) {
    const auto& r = d.trend_runs[i];
    const auto& s = d.trend_stats[i];
    trend.push_back({{"run_id", r.run_id}, {"label", r.label}, {"rev", r.rev}, {"started_at", r.started_at},
                     {"pass", s.pass}, {"fail", s.fail}, {"error", s.error}, {"skipped", s.skipped},
                     {"mean_abs_error_pct", opt(s.mean_abs_error_pct)}, {"wall_seconds", s.wall_seconds}});
  }
  return j;
}

}  // namespace mxc::regress
