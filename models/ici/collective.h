#pragma once
// Collective operations and algorithms, and the schedule builder that maps a
// (collective, algorithm, topology, bytes per chip) to a chunk schedule.
#include <cstdint>
#include <string>

#include "models/ici/schedule.h"
#include "models/ici/topology.h"

namespace mxc::ici {

enum class Collective { kAllReduce, kReduceScatter, kAllGather, kAllToAll };
enum class Algorithm { kRing, kBidirRing, kDimOrder, kAllAxes };

/// "allreduce", "reducescatter", "allgather", "alltoall" (also with '-' or '_').
Collective parse_collective(const std::string& s);
/// "ring", "bidir-ring", "dim", "all-axes".
Algorithm parse_algorithm(const std::string& s);
std::string to_string(Collective c);
std::string to_string(Algorithm a);

/// The schedule of `c` by `a` on `topo` with `bytes` of data per chip.
Schedule build_schedule(Collective c, Algorithm a, const Topology& topo, std::uint64_t bytes);

// One builder per algorithm (ring_algorithm.cpp, ...).
Schedule ring_schedule(Collective c, const Topology& topo, std::uint64_t bytes);
Schedule bidir_ring_schedule(Collective c, const Topology& topo, std::uint64_t bytes);
Schedule dim_order_schedule(Collective c, const Topology& topo, std::uint64_t bytes);
Schedule all_axes_schedule(Collective c, const Topology& topo, std::uint64_t bytes);

/// Phases of `c` run dimension by dimension in `order`, in direction `dir`;
/// shared by the dimension-order and all-axes algorithms.
std::vector<Phase> dim_phases(Collective c, const Topology& topo, const std::vector<std::uint32_t>& order, int dir,
                              std::uint64_t bytes);
/// Phases of `c` on the ring of all chips in direction `dir`.
std::vector<Phase> ring_phases(Collective c, const Topology& topo, int dir, std::uint64_t bytes);

inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace mxc::ici
