#include "regress/db_merge.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "regress/shard.h"

namespace mxc::regress {

namespace {

// "1/3,2/3" -> {"1/3", "2/3"}; "" -> {}.
std::set<std::string> shard_set(const std::string& list) {
  std::set<std::string> out;
  std::stringstream in(list);
  for (std::string s; std::getline(in, s, ',');)
    if (!s.empty()) out.insert(s);
  return out;
}

std::string shard_list(const std::set<std::string>& shards) {
  // In shard order (1/3 before 2/3 before 10/12), as they were numbered.
  std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, std::string>> keyed;
  for (const auto& s : shards) {
    const auto sh = shard_named(s);
    keyed.push_back({sh ? std::make_pair(sh->count, sh->index) : std::make_pair(0u, 0u), s});
  }
  std::sort(keyed.begin(), keyed.end());
  std::string out;
  for (const auto& [key, s] : keyed) out += (out.empty() ? "" : ",") + s;
  return out;
}

// Every shard K/N of one N is present (or the runs were not sharded): N
// distinct shards, all of N.
bool shards_cover(const std::set<std::string>& shards) {
  if (shards.empty()) return true;
  const auto first = shard_named(*shards.begin());
  if (!first || first->count != shards.size()) return false;
  return std::all_of(shards.begin(), shards.end(), [&](const std::string& s) {
    const auto sh = shard_named(s);
    return sh && sh->count == first->count;
  });
}

// Tests of a run known by number only: its planned count beyond its plan's
// ids (all of them for a run recorded before plans were kept).
std::int64_t unlisted_count(const RunInfo& run, std::size_t plan_size) {
  return std::max<std::int64_t>(0, run.planned - static_cast<std::int64_t>(plan_size));
}

// Complete when the run merged last is, every shard is there and every
// planned test has a result: each one the plan lists, and as many more as
// it counts unlisted.
bool merged_complete(HistoryDb& dest, std::int64_t id, const RunInfo& last, const std::set<std::string>& shards) {
  const std::set<std::string> finished = dest.finished_tests(id);
  const std::set<std::string> plan = dest.planned_tests(id);
  return last.state == "complete" && shards_cover(shards) &&
         finished.size() >= dest.run(id)->planned_count() &&
         std::includes(finished.begin(), finished.end(), plan.begin(), plan.end());
}

// A new run of `dest` for the first shard of `run`'s suite, revision and label.
RunInfo new_merged_run(HistoryDb& dest, const RunInfo& run, MergeSummary& sum) {
  RunInfo key = run;
  key.shard = "";
  key.planned = 0;
  ++sum.runs;
  return *dest.run(dest.create_run(key));
}

// The tests of the target's plan known by number only after `run` joins it.
// A run holding several shards of which some, not all, are merged already
// cannot be told apart from the target's own: refused.
std::int64_t unlisted_after(HistoryDb& dest, const RunInfo& target, const RunInfo& run, std::size_t plan_size,
                            const std::string& path) {
  const std::set<std::string> shards = shard_set(target.shard);
  const std::set<std::string> adding = shard_set(run.shard);
  std::size_t known = 0;
  for (const auto& s : adding) known += shards.count(s);
  const std::int64_t unlisted = unlisted_count(target, dest.planned_tests(target.run_id).size());
  if (adding.empty()) return std::max(unlisted, unlisted_count(run, plan_size));
  if (known == 0) return unlisted + unlisted_count(run, plan_size);
  if (known != adding.size())
    throw std::runtime_error("cannot merge '" + path + "': run " + run.suite + " @ " + run.rev + " (" + run.label +
                             ") holds shards " + run.shard + ", some of them already merged as part of " +
                             target.shard);
  return unlisted;
}

// A merged run starts when its earliest shard did, whatever order the shards
// are merged in: the start decides which run is the newest and which is a
// baseline.
void keep_earliest_start(HistoryDb& dest, const RunInfo& target, const RunInfo& run) {
  if (!run.started_at.empty() && run.started_at < target.started_at)
    dest.set_run_started(target.run_id, run.started_at);
}

// Merges one run of a source database into `dest`; checks come before any
// write.
void merge_run(HistoryDb& dest, HistoryDb& src, const RunInfo& run, const std::string& path, MergeSummary& sum) {
  // The merged run's plan is the union of the shards' plans; tests of runs
  // recorded before plans were kept are known by number only ("unlisted"),
  // summed over distinct shards. A shard merged again adds only tests its
  // plan gained since. An unsharded run plans the whole suite.
  const std::optional<RunInfo> existing = dest.find_run(run.suite, run.rev, run.label);
  const std::vector<std::string> plan = src.plan_in_order(run.run_id);
  std::int64_t unlisted = existing ? unlisted_after(dest, *existing, run, plan.size(), path)
                                   : unlisted_count(run, plan.size());
  const RunInfo target = existing ? *existing : new_merged_run(dest, run, sum);
  keep_earliest_start(dest, target, run);
  const std::int64_t id = target.run_id;
  const auto results = src.results(run.run_id);
  // Results are copied as they are: merging a shard again (after it was
  // resumed, or by mistake) replaces its results and counts nothing twice.
  dest.record_all(id, results, true);
  sum.results += results.size();

  std::set<std::string> shards = shard_set(target.shard);
  const std::set<std::string> adding = shard_set(run.shard);
  shards.insert(adding.begin(), adding.end());
  // A shard's run knows the tests its shard was taken from: they are all
  // planned, in suite order, so those of a shard never merged are not run
  // (errors in the reports, regressions against a baseline). The merged run
  // keeps them too, so a report can tell which shard a test not run was in.
  const std::vector<std::string> suite = src.suite_tests(run.run_id);
  if (!suite.empty()) unlisted = 0;  // the tests counted by number are among them
  std::vector<std::string> merged_plan = suite;
  merged_plan.insert(merged_plan.end(), plan.begin(), plan.end());
  dest.add_to_plan(id, merged_plan, shard_list(shards), unlisted);
  dest.add_suite_tests(id, suite);
  const bool complete = merged_complete(dest, id, run, shards);
  dest.set_run_state(id, complete ? "complete" : "interrupted", std::max(target.finished_at, run.finished_at));
}

}  // namespace

MergeSummary merge_databases(HistoryDb& dest, const std::vector<std::string>& sources) {
  MergeSummary sum;
  // One transaction: a merge refused at any source leaves `dest` as it was.
  dest.transaction([&] {
    for (const auto& path : sources) {
      HistoryDb src(path, HistoryDb::Access::read);
      for (const auto& run : src.runs()) merge_run(dest, src, run, path, sum);
    }
  });
  return sum;
}

}  // namespace mxc::regress
