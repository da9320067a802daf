#pragma once
// results.json of a run (schema in docs/results.md). Deterministic: the same
// run gives the same bytes (no wall-clock values, fixed key order).
#include <nlohmann/json.hpp>

#include "cosim/system_run.h"

namespace mxc {

inline constexpr int kResultsSchemaVersion = 2;

nlohmann::ordered_json results_json(const SystemRunOptions& opts, const SystemRunResult& r);

}  // namespace mxc
