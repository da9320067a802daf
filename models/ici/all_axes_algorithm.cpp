// All axes concurrently: the data is split into 2n parts for the n
// dimensions that have links. Part j runs the dimension-by-dimension schedule
// starting at dimension j mod n, in the plus direction for j < n and minus
// otherwise. With dimensions of one size the parts move in step, so at any
// moment they use different (dimension, direction) pairs and all 2n ports of
// every chip are busy; with unequal sizes a part leaves a short dimension
// while another still uses the next one, and they share its links (docs/ici.md,
// "The bound"). All-to-all sends every
// destination its share directly and lets routing spread it over the ports.
#include "models/ici/collective.h"

namespace mxc::ici {

Schedule all_axes_schedule(Collective c, const Topology& topo, std::uint64_t bytes) {
  Schedule s;
  s.name = to_string(c) + "/all-axes";
  if (c == Collective::kAllToAll) {
    Phase ph;
    ph.group = Group::kAllChips;
    ph.pattern = Pattern::kDirect;
    ph.steps = 1;
    ph.step_bytes = ceil_div(bytes, topo.num_chips());
    s.streams.push_back(Stream{{ph}});
    return s;
  }
  std::vector<std::uint32_t> active;
  for (std::uint32_t d = 0; d < topo.num_dims(); ++d)
    if (topo.dim_size(d) > 1) active.push_back(d);
  const std::uint32_t n = static_cast<std::uint32_t>(active.size());
  const std::uint64_t parts = 2ull * n;
  for (std::uint32_t j = 0; j < parts; ++j) {
    std::vector<std::uint32_t> order;
    for (std::uint32_t i = 0; i < n; ++i) order.push_back(active[(j + i) % n]);
    // Split `bytes` exactly: the first (bytes mod parts) parts get one more byte.
    const std::uint64_t part = bytes / parts + (j < bytes % parts ? 1 : 0);
    s.streams.push_back(Stream{dim_phases(c, topo, order, j < n ? +1 : -1, part)});
  }
  return s;
}

}  // namespace mxc::ici
