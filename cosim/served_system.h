#pragma once
// What a system config puts on a transport server: its memories (one per
// chip) and its fabric (docs/transport.md). Shared by `mxcosim serve`,
// `mxcosim run --connect`, the transport tests and benchmark.
#include "bridge/transport/served_models.h"
#include "cosim/system_config.h"

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

}  // namespace mxc
