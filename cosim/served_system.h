#pragma once
// What a system config puts on a transport server: its memories (one per
// chip) and its fabric (docs/transport.md), and how a run uses what a server
// serves. Shared by `mxcosim serve`, `mxcosim run --connect`, the transport
// tests and benchmark.
#include <memory>
#include <string>

#include "bridge/transport/chip_port.h"
#include "bridge/transport/client_session.h"
#include "bridge/transport/served_models.h"
#include "cosim/system_config.h"
#include "cosim/system_run.h"

namespace mxc {

inline transport::ServedSystem served_system(const SystemConfig& cfg) {
  transport::ServedSystem s;
  s.chips = cfg.chips;
  s.tiles_per_chip = cfg.tiles_per_chip;
  s.memory = cfg.memory;
  s.ideal_latency_ps = cfg.ideal_latency_ps;
  s.ideal_outstanding = cfg.ideal_outstanding;
  s.hbm_config = cfg.hbm_config;
  s.ici_config = cfg.ici_config;
  return s;
}

/// Makes `o` run with what the server of `s` serves, as its HELLO said: the proxies of its
/// memories and of its fabric or, for a split run (`s` opened with ClientOptions::split), the
/// port to the fabric it shares between the clients. What the server does not serve, the run
/// builds itself, exactly as in one process. The served models are fresh per session, so a
/// second system (a re-run) needs a session of its own.
inline void use_served_models(SystemRunOptions& o, const std::shared_ptr<transport::ClientSession>& s) {
  o.make_memory = nullptr;
  o.make_fabric = nullptr;
  o.make_port = nullptr;
  o.chips.clear();
  if (s->serves_memories())
    o.make_memory = [s](std::uint32_t chip, const std::string& name) {
      return transport::ClientSession::make_memory(s, chip, name);
    };
  if (s->options().split) {
    o.chips = s->options().chips;
    o.make_port = [s] { return std::make_unique<transport::ChipPort>(s); };
  } else if (s->fabric_chips() > 0) {
    o.make_fabric = [s] { return transport::ClientSession::make_fabric(s); };
  }
}

/// "memories and fabric served by ADDR", "fabric served by ADDR, memories simulated here", ...
inline std::string served_models_text(const SystemRunOptions& o, const transport::ClientSession& s) {
  const bool fabric = s.fabric_chips() > 0;
  std::string served = s.serves_memories() ? (fabric ? "memories and fabric" : "memories") : "fabric";
  std::string here = !s.serves_memories() ? "memories" : (!fabric && o.system.chips > 1) ? "fabric" : "";
  return served + " served by " + s.address() + (here.empty() ? "" : ", " + here + " simulated here");
}

}  // namespace mxc
