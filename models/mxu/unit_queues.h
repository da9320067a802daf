#pragma once
// How many instructions of a unit can be outstanding (dispatched and not yet
// complete) when an instruction dispatches: the one bound behind the wait
// fields ProgramBuilder computes, the hazards check_hazards finds and the
// dispatch of ModelTile (docs/isa.md, Dependencies).
#include <cstdint>

#include "models/mxu/isa.h"

namespace mxc {

/// Depth of each unit's instruction queue (rtl/mxu_tile.sv). A unit takes
/// its next instruction from the queue once the one it executes has
/// completed, so at most kUnitQueueDepth + 1 of its instructions are ever
/// outstanding.
inline constexpr std::uint64_t kUnitQueueDepth = 4;

/// The most instructions of unit `of` outstanding when an instruction of unit
/// `dispatching` dispatches: for its own unit the queue must have room for it
/// (rtl/mxu_dispatch.sv), so at most kUnitQueueDepth of the earlier ones are;
/// another unit may have its queue full and one executing. An instruction of
/// `of` with at least this many of its unit after it (and before the
/// dispatching one) is complete: units complete in order.
constexpr std::uint64_t max_outstanding_at_dispatch(Unit dispatching, Unit of) {
  return dispatching == of ? kUnitQueueDepth : kUnitQueueDepth + 1;
}

}  // namespace mxc
