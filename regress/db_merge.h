#pragma once
// Merging shard databases (one per Slurm task) into one: runs with the same
// suite, revision and label become one run holding every shard's results.
#include <string>
#include <vector>

#include "regress/history_db.h"

namespace mxc::regress {

struct MergeSummary {
  std::size_t runs = 0, results = 0;
};

/// Copies every run, plan and result of `sources` (opened read-only) into
/// `dest`. Merging a shard again replaces its results and changes neither
/// the run's planned count (unless the shard's plan grew since), its shard
/// list nor any test's attempts. The merged plan holds every test a shard's
/// run was taken from (HistoryDb::suite_tests), so the tests of a shard
/// never merged are planned and not run. A merged run is complete when it
/// has every shard K/N of its N and a result for every planned test.
MergeSummary merge_databases(HistoryDb& dest, const std::vector<std::string>& sources);

}  // namespace mxc::regress
