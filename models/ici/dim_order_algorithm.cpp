// Dimension by dimension: a ring reduce-scatter along dimension 0, then 1, ...
// on a 1/k_d shrinking share, and the all-gather back in reverse order. The b
// term telescopes to the single-ring value; the a term is 2 * sum(k_d - 1).
#include <numeric>

#include "models/ici/collective.h"

namespace mxc::ici {

Schedule dim_order_schedule(Collective c, const Topology& topo, std::uint64_t bytes) {
  Schedule s;
  s.name = to_string(c) + "/dim";
  std::vector<std::uint32_t> order(topo.num_dims());
  std::iota(order.begin(), order.end(), 0u);
  s.streams.push_back(Stream{dim_phases(c, topo, order, +1, bytes)});
  return s;
}

}  // namespace mxc::ici
