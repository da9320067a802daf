#pragma once
// Shared by `mxcosim serve` and `mxcosim run --connect`: how a run connects to
// a server and uses its models (what a config serves: cosim/served_system.h).
#include <cstdint>
#include <string>
#include <vector>

#include "cosim/served_system.h"
#include "cosim/system_config.h"
#include "cosim/system_run.h"

namespace mxc::app {

/// Connects to the server at `address` and makes `o` use the models it serves (the rest `o`
/// builds itself). With `chips`, a split run: `o` runs only those chips' tiles, other clients
/// the rest. Returns what is served and what is simulated here, for the run's header.
std::string connect_run(SystemRunOptions& o, const std::string& address, double reply_timeout_s,
                        const std::vector<std::uint32_t>& chips = {});

}  // namespace mxc::app
