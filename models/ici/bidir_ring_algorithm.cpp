// Bidirectional ring: half of the data goes round the snake ring each way,
// so both directions of every ring link carry traffic (halves the b term).
#include "models/ici/collective.h"

namespace mxc::ici {

Schedule bidir_ring_schedule(Collective c, const Topology& topo, std::uint64_t bytes) {
  Schedule s;
  s.name = to_string(c) + "/bidir-ring";
  const std::uint64_t half = ceil_div(bytes, 2);
  s.streams.push_back(Stream{ring_phases(c, topo, +1, half)});
  s.streams.push_back(Stream{ring_phases(c, topo, -1, bytes - half)});
  return s;
}

}  // namespace mxc::ici
