#pragma once
// A run's results in parts: each process of a split run (docs/transport.md)
// checks the chips it ran and describes them in a part, a JSON object:
//   ici_bytes, error (why its run stopped, "" if it did not),
//   error_mismatches (its AXI protocol violation), chips: [{chip,
//   hardware_error (its first tile that raised its error output, "" if
//   none), read, written, tiles, hang, hbm, handshake, timing, data}], one
//   entry per chip, each checker's findings
//   (count and list) kept apart, every number an integer.
// merge_parts() builds the result from every process's part; one process
// has one part. It sums over chips and orders findings checker by checker
// in chip order, as one process checking every chip would, so a split run's
// results equal the in-process run's byte for byte.
#include <vector>

#include <nlohmann/json.hpp>

#include "cosim/system_config.h"
#include "cosim/system_run.h"
#include "cosim/workload.h"

namespace mxc {

/// Another client's part as the server relayed it; throws std::runtime_error, in merge_parts'
/// words, when it is not JSON.
nlohmann::json parse_part(const std::string& text);

/// Fills `result`'s totals, tiles, timing summary, findings and verdict from the parts. Without
/// `every_chip`, the parts may leave chips out: those of a split run's client that a signal
/// stopped alone, whose results are of its own chips.
void merge_parts(const std::vector<nlohmann::json>& parts, const SystemConfig& cfg, const Workload& work, bool shadow,
                 SystemRunResult& result, bool every_chip = true);

}  // namespace mxc
