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
                   const DimensionOrderRouter& router, std::vector<std::uint64_t>& load, ProgressTicker<>& ticker) {
  std::fill(load.begin(), load.end(), 0);
  StepCost c;
  std::vector<std::uint32_t> peers;
  for (std::uint32_t chip = 0; chip < topo.num_chips(); ++chip) {
    peers.clear();
    groups.peers(chip, ph, step, peers);
    for (std::uint32_t dst : peers) {
      // A tick per path: all-to-all gives a chip thousands of peers on a large ring, each path
      // thousands of hops.
      if (ticker.tick(0)) throw LoopStopped(0);
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

BoundTerms schedule_bound(const Schedule& s, const Topology& topo, const IciConfig& cfg,
                          const ProgressReport& progress) {
  ProgressTicker<> ticker(progress);
  const Groups groups(topo);
  const DimensionOrderRouter router(topo);
  const std::uint32_t chips = topo.num_chips();
  std::vector<std::uint64_t> load(static_cast<std::size_t>(chips) * topo.num_ports());
  const double a = static_cast<double>(cfg.router_latency_ps + cfg.link_latency_ps);
  const double b = 1e12 / static_cast<double>(cfg.link_bytes_per_s());
  // chain[c]: hops of the longest chain of messages, one per step so far,
  // each sent when its sender had received the one before, that ends at c.
  std::vector<std::uint64_t> chain(chips), next(chips);
  std::vector<std::uint32_t> from(chips), hops(chips);
  std::vector<std::uint32_t> peers;
  BoundTerms worst;
  double worst_total = -1;
  for (const Stream& st : s.streams) {
    std::fill(chain.begin(), chain.end(), 0);
    double bw = 0;
    for (const Phase& ph : st.phases) {
      if (ph.pattern == Pattern::kShift) {
        // Each chip waits for one message per step, always from the same
        // sender, and sends its next one then: chains add the hops of the
        // messages on them. Every message carries step_bytes on links of
        // its own (a shift step sends one message each way along a ring).
        for (std::uint32_t c = 0; c < chips; ++c) {
          peers.clear();
          groups.peers(c, ph, 0, peers);
          from[peers[0]] = c;
          hops[peers[0]] = static_cast<std::uint32_t>(router.path(c, peers[0]).size());
        }
        for (std::uint32_t step = 0; step < ph.steps; ++step) {
          if (ticker.tick(0)) throw LoopStopped(0);
          for (std::uint32_t d = 0; d < chips; ++d) next[d] = chain[from[d]] + hops[d];
          chain.swap(next);
        }
        bw += ph.steps * b * static_cast<double>(ph.step_bytes);
        continue;
      }
      // All-to-all: a step-synchronous estimate, every step costing its
      // longest message and its busiest link.
      const std::uint64_t start = *std::max_element(chain.begin(), chain.end());
      std::uint64_t h = 0;
      for (std::uint32_t step = 0; step < ph.steps; ++step) {
        const StepCost c = step_cost(ph, step, topo, groups, router, load, ticker);
        h += c.max_hops;
        bw += b * static_cast<double>(c.max_link_bytes);
      }
      std::fill(chain.begin(), chain.end(), start + h);
    }
    const double lat = a * static_cast<double>(*std::max_element(chain.begin(), chain.end()));
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
