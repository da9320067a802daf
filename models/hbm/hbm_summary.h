#pragma once
// The numbers a run reports: bandwidth against the peak and the activate
// ceiling, latency percentiles, row-buffer outcomes, refresh share, queue
// occupancy and the constraint that held commands back the most.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "models/hbm/closed_loop.h"
#include "models/hbm/hbm_model.h"

namespace mxc::hbm {

struct HbmSummary {
  std::string device;
  std::uint32_t stacks = 1, pseudo_channels = 0;
  double peak_bandwidth_gbps = 0;
  double read_bandwidth_gbps = 0, write_bandwidth_gbps = 0;
  double activate_ceiling_gbps = 0;  ///< Bandwidth if activates ran at their limit (bytes per ACT as measured).
  double avg_latency_ns = 0, p50_latency_ns = 0, p99_latency_ns = 0, max_latency_ns = 0;
  /// Requests between issue and completion, time-averaged over the run
  /// (Little's law: the latencies summed over the simulated time), and the
  /// most the closed loop allowed. Bandwidth = in flight x size / latency.
  double avg_in_flight = 0;
  std::uint32_t outstanding = 0;
  /// Share of the simulated time the next request waited for room in a
  /// full controller queue (LoopResult::queue_full_ps): head-of-line
  /// blocking, which keeps fewer requests in flight than allowed.
  double queue_full_fraction = 0;
  /// Share of the simulated time the window had room and the source offered nothing yet
  /// (LoopResult::source_idle_ps): a trace's own timing, a pointer chase.
  double source_idle_fraction = 0;
  std::uint64_t requests = 0, reads = 0, writes = 0;
  std::uint64_t capacity_bytes = 0;            ///< All stacks.
  std::uint64_t requests_beyond_capacity = 0;  ///< Aliased to lower addresses (HbmModel).
  double sim_time_ns = 0, wall_seconds = 0, requests_per_second = 0;
  std::uint64_t controller_steps = 0;  ///< Controller wake-ups (events), summed.
  std::uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0, activates = 0, refreshes = 0;
  std::uint64_t refreshes_postponed = 0;  ///< Due refreshes a busy controller owed instead.
  /// Postponed refreshes not issued by the end: a run too short for its
  /// controllers to pay them shows less refresh than a long one.
  std::uint64_t refreshes_owed = 0;
  double refresh_fraction = 0;  ///< Share of bank-time made unavailable by refresh.
  double avg_read_queue = 0, avg_write_queue = 0;  ///< Per pseudo-channel, time-weighted.
  double cpu_seconds = 0;
  std::string binding_constraint;  ///< What limits bandwidth: data bus, activate rate, or request supply.
  std::string top_wait;            ///< The timing constraint commands waited on most.
  std::vector<std::pair<std::string, double>> stall_share;  ///< Constraint -> share of command wait cycles.
  /// Cause -> share of data-bus idle time ("refresh", "no burst waiting", a constraint).
  std::vector<std::pair<std::string, double>> bus_idle_share;
  double bus_busy_fraction = 0;  ///< Data-bus cycles carrying bursts / all cycles (all PCs).
  /// Per JEDEC channel (global index: stack x channels + channel), the
  /// sum of its pseudo-channels.
  std::vector<double> channel_read_gbps, channel_write_gbps;
  /// Per pseudo-channel (global index: stack, then channel, then pseudo-channel).
  std::vector<double> pc_read_gbps, pc_write_gbps;
  std::vector<std::uint64_t> bank_activates;   ///< Summed over pseudo-channels, per bank index.
};

HbmSummary summarize(const HbmModel& model, const LoopResult& run);
/// A human-readable table.
void print_summary(std::ostream& out, const HbmSummary& s);

}  // namespace mxc::hbm
