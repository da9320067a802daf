// Ring: one unidirectional ring through all chips in snake order.
// All-reduce = reduce-scatter (p-1 steps of N/p) + all-gather (p-1 steps);
// all-to-all = p-1 pairwise shifts of N/p.
#include "models/ici/collective.h"

namespace mxc::ici {

Schedule ring_schedule(Collective c, const Topology& topo, std::uint64_t bytes) {
  Schedule s;
  s.name = to_string(c) + "/ring";
  s.streams.push_back(Stream{ring_phases(c, topo, +1, bytes)});
  return s;
}

}  // namespace mxc::ici
