#pragma once
// The alpha-beta time of a schedule, a lower bound for it on the packet
// model, with a = router + link latency per hop and b = 1 / link bandwidth.
// A chip starts a step when its messages of the step before have come, so
// in reduce-scatter, all-gather and all-reduce (shift steps) the time is at
// least that of the longest chain of messages, one per step, each sent when
// the one before arrived: a * (hops on the chain) + b * (bytes of one
// message) per step. Streams run concurrently (their contention with each
// other is ignored), the slowest counts. Headers are not counted, so the
// packet model's time exceeds the bound by at least header/payload.
// For a ring of p chips with one-hop neighbours this is the textbook
// (p-1) a + (p-1)/p N b per pass; where a ring closes over several hops (a
// line without wraparound, the snake ring on a torus with an odd
// dimension) a chain crosses that long hop once per p-1 steps, not in every
// step. For all-to-all, whose steps may overlap in the packet model, every
// step costs its longest message and its busiest link, one after another:
// a step-synchronous estimate, not a lower bound.
#include "models/core/progress.h"
#include "models/core/time.h"
#include "models/ici/ici_config.h"
#include "models/ici/schedule.h"
#include "models/ici/topology.h"

namespace mxc::ici {

struct BoundTerms {
  double latency_ps = 0;    ///< The a term of the slowest stream.
  double bandwidth_ps = 0;  ///< The b term of the slowest stream.
  Time total_ps = 0;        ///< max over streams of (a term + b term), rounded up.
};

/// `progress.stop`, when set, abandons the computation with LoopStopped
/// (on a ring of thousands of chips it takes seconds to minutes); reports,
/// if asked for, have no simulated time to give (0).
BoundTerms schedule_bound(const Schedule& s, const Topology& topo, const IciConfig& cfg,
                          const ProgressReport& progress = {});

}  // namespace mxc::ici
