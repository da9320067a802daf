#include "regress/db_merge.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

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
  std::vector<std::pair<std::pair<unsigned long, unsigned long>, std::string>> keyed;
  for (const auto& s : shards) {
    const auto slash = s.find('/');
    unsigned long k = 0, n = 0;
    try {
      k = std::stoul(s.substr(0, slash));
      n = slash == std::string::npos ? 0 : std::stoul(s.substr(slash + 1));
    } catch (const std::exception&) {
    }
    keyed.push_back({{n, k}, s});
  }
  std::sort(keyed.begin(), keyed.end());
  std::string out;
  for (const auto& [key, s] : keyed) out += (out.empty() ? "" : ",") + s;
  return out;
}

// Every shard K/N of one N is present (or the runs were not sharded).
bool shards_cover(const std::set<std::string>& shards) {
  if (shards.empty()) return true;
  std::set<std::string> want;
  const std::string& any = *shards.begin();
  const auto slash = any.find('/');
  if (slash == std::string::npos) return false;
  unsigned long n = 0;
  try {
    n = std::stoul(any.substr(slash + 1));
  } catch (const std::exception&) {
    return false;
  }
  if (n != shards.size()) return false;
  for (unsigned long k = 1; k <= n; ++k) want.insert(std::to_string(k) + "/" + std::to_string(n));
  return want == shards;
}

}  // namespace

MergeSummary merge_databases(HistoryDb& dest, const std::vector<std::string>& sources) {
  MergeSummary sum;
  for (const auto& path : sources) {
    HistoryDb src(path, HistoryDb::Access::read);
    for (const auto& run : src.runs()) {
      auto target = dest.find_run(run.suite, run.rev, run.label);
      if (!target) {
        RunInfo key = run;
        key.shard = "";
        key.planned = 0;
        target = dest.run(dest.create_run(key));
        ++sum.runs;
      }
      const std::int64_t id = target->run_id;
      const auto results = src.results(run.run_id);
      // Results are copied as they are: merging a shard again (after it was
      // resumed, or by mistake) replaces its results and counts nothing twice.
      dest.record_all(id, results, true);
      sum.results += results.size();

      // The merged run's plan is the sum over distinct shards; a shard
      // merged again adds nothing. An unsharded run plans the whole suite.
      std::set<std::string> shards = shard_set(target->shard);
      const std::set<std::string> adding = shard_set(run.shard);
      std::size_t known = 0;
      for (const auto& s : adding) known += shards.count(s);
      std::int64_t planned = target->planned;
      if (adding.empty()) {
        planned = std::max(planned, run.planned);
      } else if (known == 0) {
        planned += run.planned;
      } else if (known != adding.size()) {
        throw std::runtime_error("cannot merge '" + path + "': run " + run.suite + " @ " + run.rev + " (" + run.label +
                                 ") holds shards " + run.shard + ", some of them already merged as part of " +
                                 target->shard);
      }
      shards.insert(adding.begin(), adding.end());
      dest.set_run_planned(id, planned, shard_list(shards));
      // Complete when this run is, every shard is there and every planned
      // test has a result.
      const bool complete = run.state == "complete" && shards_cover(shards) && dest.finished_tests(id).size() >=
                                                         static_cast<std::size_t>(std::max<std::int64_t>(planned, 0));
      dest.set_run_state(id, complete ? "complete" : "interrupted", std::max(target->finished_at, run.finished_at));
    }
  }
  return sum;
}

}  // namespace mxc::regress
