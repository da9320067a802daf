#pragma once
// Simulation time: one kernel-wide unsigned count of picoseconds.
#include <cstdint>
#include <limits>

namespace mxc {

/// Picoseconds since the start of the run.
using Time = std::uint64_t;

/// "No event pending": a sleeping component reports this as its next event.
inline constexpr Time kNever = std::numeric_limits<Time>::max();

inline constexpr Time kPsPerNs = 1000;

}  // namespace mxc
