#pragma once
// Membership of the groups a schedule phase runs in: the snake ring of all
// chips, or the line of chips along one dimension (ordered by coordinate).
#include <cstdint>
#include <vector>

#include "models/ici/schedule.h"
#include "models/ici/topology.h"

namespace mxc::ici {

class Groups {
 public:
  explicit Groups(const Topology& topo);

  std::uint32_t size(const Phase& ph) const {
    return ph.group == Group::kAllChips ? m_topo.num_chips() : m_topo.dim_size(ph.dim);
  }
  /// Position of `chip` on the phase's ring.
  std::uint32_t position(std::uint32_t chip, const Phase& ph) const {
    return ph.group == Group::kAllChips ? m_pos[chip] : m_topo.coord(chip, ph.dim);
  }
  /// Chip at ring position `pos` of the group `chip` belongs to.
  std::uint32_t member(std::uint32_t chip, const Phase& ph, std::uint32_t pos) const {
    return ph.group == Group::kAllChips ? m_order[pos] : m_topo.with_coord(chip, ph.dim, pos);
  }
  /// Destinations of `chip` in step `step` of `ph` (appended to `out`).
  void peers(std::uint32_t chip, const Phase& ph, std::uint32_t step, std::vector<std::uint32_t>& out) const;
  /// Messages `chip` receives in one step of `ph`.
  std::uint32_t expected(const Phase& ph) const { return ph.pattern == Pattern::kDirect ? size(ph) - 1 : 1; }

 private:
  const Topology& m_topo;
  std::vector<std::uint32_t> m_order;  // snake ring
  std::vector<std::uint32_t> m_pos;    // chip -> position on it
};

}  // namespace mxc::ici
