// libFuzzer target: ICI fabric configs (parse_ici_config), and for an
// accepted config, the fabric it builds carrying a short burst of uniform
// traffic: a config the loader accepts must build a fabric that runs
// (delivers, or reports saturation once its drain limit passes) without an
// error or a hang.
#include <algorithm>
#include <cstdint>

#include "models/ici/fabric_factory.h"
#include "models/ici/ici_config_loader.h"
#include "models/ici/topology.h"
#include "models/ici/traffic_pattern.h"
#include "models/ici/traffic_run.h"
#include "tests/fuzz/fuzz_oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string origin = "fuzz_ici.yaml";
  mxc::ici::IciConfig cfg;
  bool accepted = false;
  mxc::fuzz::accept_or_named_error(origin, [&] {
    cfg = mxc::ici::parse_ici_config(mxc::fuzz::text_of(data, size), origin);
    accepted = true;
  });
  if (!accepted) return 0;
  auto fabric = mxc::ici::make_fabric(cfg);
  const mxc::ici::Topology topo(cfg.dims, cfg.wrap);
  // Traffic needs two chips; above 512 chips it would only cost time here.
  if (topo.num_chips() < 2 || topo.num_chips() > 512) return 0;
  const double link = static_cast<double>(cfg.link_bytes_per_s());
  mxc::ici::TrafficParams prm;
  prm.load = 0.05;
  prm.packet_bytes = 64;
  prm.warmup_ps = 0;
  // Four packet slots a chip, however slow the links are.
  const double slot = mxc::ici::packet_slot_ps(topo, link, prm.packet_bytes);
  prm.measure_ps = static_cast<mxc::Time>(std::min(4 * slot + 1, 1e15));
  prm.drain_limit_ps = 10 * prm.measure_ps;
  mxc::ici::run_traffic(*fabric, topo, mxc::ici::TrafficPattern(mxc::ici::TrafficKind::kUniform, topo), link, prm);
  return 0;
}
