#pragma once
// The alpha-beta time of a schedule, a lower bound for it on the packet
// model: every step costs a * (hops of its longest message) + b * (bytes on
// its busiest link), with a = router + link latency per hop and b = 1 / link
// bandwidth; steps of a stream add up; streams run concurrently (their
// contention with each other is ignored). Headers are not counted, so the
// packet model's time exceeds the bound by at least header/payload.
// For a ring of p chips this is the textbook (p-1) a + (p-1)/p N b per pass.
// For reduce-scatter, all-gather and all-reduce (shift steps, each waiting on
// the previous one) it is a lower bound; for all-to-all, whose steps may
// overlap in the packet model, it is a step-synchronous estimate.
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

BoundTerms schedule_bound(const Schedule& s, const Topology& topo, const IciConfig& cfg);

}  // namespace mxc::ici
