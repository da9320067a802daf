#include "models/ici/schedule_bound.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/ici/groups.h"
#include "models/ici/routing.h"

namespace mxc::ici {

namespace {

struct StepCost {
  std::uint32_t max_hops = 0;
  std::uint64_t max_link_bytes = 0;
};

StepCost step_cost(const Phase& ph, std::uint32_t step, const Topology& topo, const Groups& groups,
                   const DimensionOrderRouter& router, std::vector<std::uint64_t>& load) {
  std::fill(load.begin(), load.end(), 0);
  StepCost c;
  std::vector<std::uint32_t> peers;
  for (std::uint32_t chip = 0; chip < topo.num_chips(); ++chip) {
    peers.clear();
    groups.peers(chip, ph, step, peers);
    for (std::uint32_t dst : peers) {
      const auto path = router.path(chip, dst);
      c.max_hops = std::max<std::uint32_t>(c.max_hops, static_cast<std::uint32_t>(path.size()));
      for (const auto& [from, port] : path) {
        std::uint64_t& l = load[static_cast<std::size_t>(from) * topo.num_ports() + port];
        l += ph.step_bytes;
        c.max_link_bytes = std::max(c.max_link_bytes, l);
      }
    }
  }
  return c;
}

}  // namespace

BoundTerms schedule_bound(const Schedule& s, const Topology& topo, const IciConfig& cfg) {
  const Groups groups(topo);
  const DimensionOrderRouter router(topo);
  std::vector<std::uint64_t> load(static_cast<std::size_t>(topo.num_chips()) * topo.num_ports());
  const double a = static_cast<double>(cfg.router_latency_ps + cfg.link_latency_ps);
  const double b = 1e12 / static_cast<double>(cfg.link_bytes_per_s());
  BoundTerms worst;
  double worst_total = -1;
  for (const Stream& st : s.streams) {
    double lat = 0, bw = 0;
    for (const Phase& ph : st.phases) {
      // Shift and direct steps repeat the same traffic; pairwise steps differ.
      const std::uint32_t distinct = ph.pattern == Pattern::kPairwise ? ph.steps : std::min(ph.steps, 1u);
      for (std::uint32_t step = 0; step < distinct; ++step) {
        const StepCost c = step_cost(ph, step, topo, groups, router, load);
        const double times = ph.pattern == Pattern::kPairwise ? 1.0 : ph.steps;
        lat += times * a * c.max_hops;
        bw += times * b * static_cast<double>(c.max_link_bytes);
      }
    }
    if (lat + bw > worst_total) {
      worst_total = lat + bw;
      worst.latency_ps = lat;
      worst.bandwidth_ps = bw;
    }
  }
  worst.total_ps = static_cast<Time>(std::ceil(std::max(0.0, worst_total)));
  return worst;
}

}  // namespace mxc::ici
