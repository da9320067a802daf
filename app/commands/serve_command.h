#pragma once
// Shared by `mxcosim serve` and `mxcosim run --connect`: what a system config
// serves, and how a run plugs in the proxies of a server's models.
#include <string>

#include "bridge/transport/served_models.h"
#include "cosim/system_config.h"
#include "cosim/system_run.h"

namespace mxc::app {

/// The memories and fabric of `cfg`, as the transport describes them.
transport::ServedSystem served_system(const SystemConfig& cfg);

/// Connects to the server at `address` and makes `o` use its memories and fabric.
void connect_run(SystemRunOptions& o, const std::string& address, double reply_timeout_s);

}  // namespace mxc::app
