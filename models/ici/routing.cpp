#include "models/ici/routing.h"

#include <stdexcept>

namespace mxc::ici {

DimensionOrderRouter::DimensionOrderRouter(const Topology& topo, bool datelines)
    : m_topo(topo), m_datelines(datelines) {
  const std::uint32_t n = topo.num_chips();
  if (n > kTableMaxChips || topo.num_ports() > kWrapBit) return;
  m_table.assign(static_cast<std::size_t>(n) * n, 0);
  for (std::uint32_t cur = 0; cur < n; ++cur) {
    for (std::uint32_t dst = 0; dst < n; ++dst) {
      if (cur == dst) continue;
      RouteState st;
      const Hop h = compute(cur, dst, st);
      m_table[cur * n + dst] = static_cast<std::uint8_t>(h.port | (topo.is_wrap_link(cur, h.port) ? kWrapBit : 0));
    }
  }
}

Hop DimensionOrderRouter::next_hop(std::uint32_t cur, std::uint32_t dst, RouteState& state) const {
  if (m_table.empty() || cur == dst) return compute(cur, dst, state);
  const std::uint8_t e = m_table[cur * m_topo.num_chips() + dst];
  Hop h;
  h.port = e & ~kWrapBit;
  const std::uint32_t d = h.port / 2;
  h.cls = state.dim == d ? state.cls : 0;
  if (m_datelines && (e & kWrapBit)) h.cls = 1;
  state.dim = static_cast<std::uint8_t>(d);
  state.cls = h.cls;
  return h;
}

Hop DimensionOrderRouter::compute(std::uint32_t cur, std::uint32_t dst, RouteState& state) const {
  for (std::uint32_t d = 0; d < m_topo.num_dims(); ++d) {
    const std::uint32_t a = m_topo.coord(cur, d), b = m_topo.coord(dst, d);
    if (a == b) continue;
    const std::uint32_t k = m_topo.dim_size(d);
    bool minus;
    if (m_topo.wraps(d)) {
      const std::uint32_t fwd = (b + k - a) % k;
      minus = fwd > k - fwd;  // tie goes plus: every packet agrees on the direction
    } else {
      minus = b < a;
    }
    Hop h;
    h.port = Topology::port(d, minus);
    h.cls = state.dim == d ? state.cls : 0;
    if (m_datelines && m_topo.is_wrap_link(cur, h.port)) h.cls = 1;
    state.dim = static_cast<std::uint8_t>(d);
    state.cls = h.cls;
    return h;
  }
  throw std::logic_error("routing: next_hop called at the destination");
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> DimensionOrderRouter::path(std::uint32_t src,
                                                                                 std::uint32_t dst) const {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  RouteState st;
  std::uint32_t cur = src;
  while (cur != dst) {
    const Hop h = next_hop(cur, dst, st);
    out.emplace_back(cur, h.port);
    cur = m_topo.neighbour(cur, h.port);
  }
  return out;
}

}  // namespace mxc::ici
