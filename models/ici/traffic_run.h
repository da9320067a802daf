#pragma once
// One point of a latency-versus-offered-load curve: open-loop sources inject
// packets by a Bernoulli process, warm up, measure, then drain.
//
// Offered load is the fraction of a chip's injection capacity, taken as the
// bandwidth of all its outgoing links (2 * dims-with-links * link bandwidth):
// at load L every sending chip offers L of that capacity in payload bytes.
// Latency is creation to delivery, so it includes waiting at the source.
#include <cstdint>

#include "models/core/fabric.h"
#include "models/core/progress.h"
#include "models/ici/traffic_pattern.h"

namespace mxc::ici {

struct TrafficParams {
  double load = 0.1;                  ///< Offered load, (0, 1].
  std::uint32_t packet_bytes = 1024;  ///< Payload per packet.
  Time warmup_ps = 20'000'000;
  Time measure_ps = 50'000'000;
  Time drain_limit_ps = 200'000'000;  ///< Give up on measured packets after this.
  std::uint64_t seed = 1;
  /// Packets made and not yet delivered (waiting at their sources or in
  /// the network) beyond which the sources make no more, each source its
  /// share (max_backlog / chips, at least 1): a source with its share out
  /// refuses its next packets (counted, not made) until fewer are, and the
  /// fabric runs on to the end of the window. It bounds the memory of a
  /// point far past saturation, on either fabric.
  std::uint64_t max_backlog = 4'000'000;
};

struct TrafficPoint {
  /// Offered payload over all chips' capacity, the measure of
  /// accepted_load: the load each sending chip offers times the share of
  /// chips that send (all of them but transpose's diagonal).
  double offered_load = 0;
  double offered_per_sender = 0;  ///< The load each sending chip offers: TrafficParams::load.
  double accepted_load = 0;   ///< Delivered payload in the window / capacity.
  double avg_latency_ns = 0;  ///< Mean latency of measured packets that arrived (0 if none did).
  double max_latency_ns = 0;
  std::uint64_t measured = 0;   ///< Packets created in the window.
  std::uint64_t delivered = 0;  ///< ... of which delivered.
  /// Measured packets not delivered by the end of the drain, or the backlog
  /// (made, not delivered) grew over the window's second half by more than
  /// 2 % of the packets made in it and 2 per chip (traffic_run.cpp).
  bool saturated = false;
  /// Packets in the network and no event left to move them: its buffers
  /// wait on one another in a cycle (only with datelines off). Saturated too.
  bool deadlocked = false;
  /// Packets the sources drew in the window but did not make, the backlog
  /// being at TrafficParams::max_backlog. Not in `measured`.
  std::uint64_t refused = 0;
  /// Some were (refused > 0): the window's offered load was not all made,
  /// though the rates are still over the whole window. Saturated too.
  bool truncated = false;
};

/// Time between a source's packet slots (one Bernoulli trial each): a
/// packet of `packet_bytes` at the chip's full outgoing bandwidth.
double packet_slot_ps(const Topology& topo, double link_bytes_per_s, std::uint32_t packet_bytes);

/// Runs one point on a fresh `fabric` (it must be idle at time 0), telling
/// `progress` the simulated time now and then. Its stop flag, once set,
/// abandons the point with LoopStopped (its measurement is not complete).
TrafficPoint run_traffic(Fabric& fabric, const Topology& topo, const TrafficPattern& pattern, double link_bytes_per_s,
                         const TrafficParams& params, const ProgressReport& progress = {});

}  // namespace mxc::ici
