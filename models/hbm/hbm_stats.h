#pragma once
// Statistics of one pseudo-channel controller; HbmModel sums them.
#include <array>
#include <cstdint>
#include <vector>

#include "models/hbm/timing_table.h"

namespace mxc::hbm {

// The fields every controller step or column command updates come first,
// in one cache line (the controllers' state does not fit in L1 together).
struct PcStats {
  std::uint64_t steps = 0;                ///< Cycles the controller woke up for (event count).
  std::uint64_t last_cycle = 0;           ///< Last cycle the controller processed.
  std::uint64_t read_queue_integral = 0, write_queue_integral = 0;  ///< Occupancy x cycles.
  std::uint64_t read_bursts = 0, write_bursts = 0;
  std::uint64_t row_hits = 0;
  std::uint64_t refresh_idle_cycles = 0;  ///< Data-bus idle cycles while refresh blocked the bursts.
  std::array<std::uint64_t, kNumConstraints> stall_cycles{};  ///< Command wait by binding constraint.
  /// Data-bus idle cycles (between bursts) by cause: the constraint that
  /// held the next column command back; kNone = no burst was waiting.
  std::array<std::uint64_t, kNumConstraints> bus_idle_cycles{};
  std::uint64_t miss_idle_cycles = 0;     ///< ... while the next burst waited for its activate.
  std::uint64_t conflict_idle_cycles = 0; ///< ... while it waited for precharge and activate.
  std::uint64_t row_misses = 0, row_conflicts = 0;
  std::uint64_t acts = 0, pres = 0, refreshes = 0;
  std::uint64_t refreshes_postponed = 0;  ///< Times a due refresh was owed instead (controller.refresh_postpone).
  std::uint64_t refresh_bank_cycles = 0;  ///< Bank-cycles made unavailable by refresh.
  std::vector<std::uint64_t> bank_acts;   ///< Activates per bank.

  void add(const PcStats& o);
};

}  // namespace mxc::hbm
