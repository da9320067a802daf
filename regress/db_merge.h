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

/// Copies every run and result of `sources` into `dest`. A merged run is
/// complete when every shard run merged into it was.
MergeSummary merge_databases(HistoryDb& dest, const std::vector<std::string>& sources);

}  // namespace mxc::regress
