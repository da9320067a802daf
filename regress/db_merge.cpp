#include "regress/db_merge.h"

#include <algorithm>

namespace mxc::regress {

MergeSummary merge_databases(HistoryDb& dest, const std::vector<std::string>& sources) {
  MergeSummary sum;
  for (const auto& path : sources) {
    HistoryDb src(path);
    for (const auto& run : src.runs()) {
      auto target = dest.find_run(run.suite, run.rev, run.label);
      std::int64_t id = 0;
      if (!target) {
        RunInfo key = run;
        key.shard = "";
        key.planned = 0;
        id = dest.create_run(key);
        dest.set_run_state(id, "complete", run.finished_at);
        target = dest.run(id);
        ++sum.runs;
      }
      id = target->run_id;
      const auto results = src.results(run.run_id);
      dest.record_all(id, results);
      sum.results += results.size();
      // Shards list and planned total accumulate; one unfinished shard
      // leaves the merged run unfinished.
      const std::string shards =
          target->shard.empty() ? run.shard : (run.shard.empty() ? target->shard : target->shard + "," + run.shard);
      dest.set_run_planned(id, target->planned + run.planned, shards);
      const bool complete = target->state == "complete" && run.state == "complete";
      dest.set_run_state(id, complete ? "complete" : "interrupted",
                         std::max(target->finished_at, run.finished_at));
    }
  }
  return sum;
}

}  // namespace mxc::regress
