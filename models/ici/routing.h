#pragma once
// Dimension-order routing with dateline virtual channels. A packet corrects
// dimension 0 first, then 1, ...; on a wrapped dimension it takes the shorter
// way round (plus on a tie), so it crosses each ring's wraparound link (the
// dateline) at most once. It travels in VC class 0 until it crosses the
// dateline of the current dimension, then class 1; the class resets when it
// turns into the next dimension. That breaks every ring's cyclic channel
// dependency, which is what makes a credit-flow-controlled torus deadlock free.
#include <cstdint>
#include <vector>

#include "models/ici/topology.h"

namespace mxc::ici {

/// Where a packet is: the dimension of its last hop and its dateline class.
struct RouteState {
  std::uint8_t dim = 0xff;  ///< Dimension of the last hop (0xff before the first).
  std::uint8_t cls = 0;     ///< Dateline class of the last hop.
};

/// One hop: the output port and the dateline class of the link taken.
struct Hop {
  std::uint32_t port = 0;
  std::uint8_t cls = 0;
};

class DimensionOrderRouter {
 public:
  /// datelines=false puts every hop in class 0 (for experiments: it can deadlock).
  explicit DimensionOrderRouter(const Topology& topo, bool datelines = true);

  /// Next hop from `cur` towards `dst` (cur != dst); updates `state`.
  Hop next_hop(std::uint32_t cur, std::uint32_t dst, RouteState& state) const;
  /// Every (chip, port) link of the path from src to dst, in order.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> path(std::uint32_t src, std::uint32_t dst) const;

  const Topology& topology() const { return m_topo; }

 private:
  /// The first hop from cur to dst by coordinates (state.dim before any hop).
  Hop compute(std::uint32_t cur, std::uint32_t dst, RouteState& state) const;

  // Small fabrics look up (port, is-wrap-link) per (cur, dst) instead of
  // recomputing coordinates on every hop: a hop is the simulator's inner loop.
  static constexpr std::uint32_t kTableMaxChips = 256;
  static constexpr std::uint8_t kWrapBit = 0x80;
  // Its own copy (a few small vectors): a fabric copied with its router
  // (the served models copy one per session) must not route by the
  // original's, which may be gone.
  Topology m_topo;
  bool m_datelines;
  std::vector<std::uint8_t> m_table;  // [cur * chips + dst]: port | kWrapBit; empty when not built
};

}  // namespace mxc::ici
