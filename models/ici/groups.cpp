#include "models/ici/groups.h"

namespace mxc::ici {

Groups::Groups(const Topology& topo) : m_topo(topo), m_order(topo.snake_order()), m_pos(topo.num_chips()) {
  for (std::uint32_t i = 0; i < m_order.size(); ++i) m_pos[m_order[i]] = i;
}

void Groups::peers(std::uint32_t chip, const Phase& ph, std::uint32_t step, std::vector<std::uint32_t>& out) const {
  const std::int64_t k = size(ph);
  const std::int64_t pos = position(chip, ph);
  auto at = [&](std::int64_t off) {
    return member(chip, ph, static_cast<std::uint32_t>(((pos + off) % k + k) % k));
  };
  switch (ph.pattern) {
    case Pattern::kShift: out.push_back(at(ph.dir)); break;
    case Pattern::kPairwise: out.push_back(at(static_cast<std::int64_t>(step + 1) * ph.dir)); break;
    case Pattern::kDirect:
      for (std::int64_t off = 1; off < k; ++off) out.push_back(at(off * ph.dir));
      break;
  }
}

}  // namespace mxc::ici
