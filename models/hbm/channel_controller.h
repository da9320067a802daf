#pragma once
// The memory controller of one pseudo-channel: read and write queues,
// FR-FCFS scheduling with a starvation cap, open- or closed-page policy,
// write draining between watermarks, all-bank or per-bank refresh. Row
// (ACT/PRE/REF) and column (RD/WR) commands may issue in the same cycle, as
// HBM's separate command buses allow. Works in cycles of tCK and is
// event-driven: next_cycle() is the next cycle at which a command could
// issue, kNever when idle (refreshes that fell due while idle are issued
// retroactively when work arrives, so idle time costs nothing).
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/hbm/hbm_config.h"
#include "models/hbm/timing_checker.h"
#include "models/hbm/timing_table.h"

namespace mxc {

/// One burst-sized piece of a request, queued at a controller.
struct HbmBurst {
  std::uint32_t tag = 0;  ///< Chosen by the owner, returned on completion.
  std::uint32_t bg = 0, bank = 0, row = 0, col = 0;
  bool write = false;
  std::uint64_t arrive = 0;  ///< First cycle it may be scheduled.
  std::uint8_t state_at_arrival = 0;  // internal: hit / closed / conflict
  std::uint64_t act_seen = 0;         // internal: the bank's ACT cycle at arrival
};

/// Counters of one controller.
struct ChannelStats {
  std::uint64_t reads = 0, writes = 0;  ///< Bursts completed.
  std::uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0;
  std::uint64_t acts = 0, pres = 0, refreshes = 0;
  std::uint64_t refresh_bank_cycles = 0;  ///< Sum over refreshes of (banks blocked x cycles).
  std::uint64_t busy_cycles = 0;          ///< Data-bus cycles carrying bursts.
  std::uint64_t idle_empty_cycles = 0;    ///< Data bus idle with no request queued.
  std::array<std::uint64_t, static_cast<int>(Constraint::kCount)> stall_cycles{};  ///< Idle with work, by cause.
  std::uint64_t queue_cycle_sum = 0;      ///< Integral of queued bursts over cycles.
  std::vector<std::uint64_t> bank_acts, bank_columns;
};

class ChannelController {
 public:
  using DoneFn = std::function<void(std::uint32_t tag, std::uint64_t done_cycle)>;
  using CommandFn = std::function<void(const DramCommand&)>;

  /// `unit` of `units` pseudo-channels staggers the refresh schedule.
  ChannelController(const HbmConfig& cfg, std::uint32_t unit, std::uint32_t units, DoneFn done);

  bool can_accept(bool write) const;
  /// Queues a burst at `cycle` (not earlier than any previous call's cycle).
  void enqueue(HbmBurst b, std::uint64_t cycle);
  /// Next cycle with work; kNever when idle.
  std::uint64_t next_cycle() const { return m_next; }
  /// Issues what is due at `cycle` (== next_cycle()).
  void step(std::uint64_t cycle);
  /// Issues refreshes owed up to `cycle` and closes the checker's books.
  void finish(std::uint64_t cycle);

  /// Sees every command (traces, tests).
  void set_command_observer(CommandFn fn) { m_observer = std::move(fn); }
  const TimingChecker* checker() const { return m_checker.get(); }
  const ChannelStats& stats() const { return s; }
  std::size_t queued() const { return m_rq.size() + m_wq.size(); }

 private:
  enum : std::uint8_t { kArrHit, kArrClosed, kArrConflict };
  struct Bank {
    bool open = false;
    std::uint32_t row = 0;
    std::uint64_t act_cycle = 0;
    Constraint act_reason = Constraint::kRCD;
  };
  void issue(DramCmd cmd, std::uint32_t bg, std::uint32_t bank, std::uint32_t row, std::uint32_t col,
             std::uint64_t cycle);
  void update_mode();
  bool refresh_pending(std::uint64_t c) const { return m_refresh_on && c >= m_refresh_due; }
  /// Issues the refresh step possible at c (if any); true if the row bus was used.
  bool refresh_step(std::uint64_t c);
  std::uint64_t refresh_next(std::uint64_t c) const;
  void catch_up_refresh(std::uint64_t before);
  bool blocked(std::uint32_t fb, std::uint64_t c) const;
  void recompute_next(std::uint64_t lo);
  std::uint64_t empty_total_at(std::uint64_t c) const {
    return m_empty_total + (m_rq.empty() && m_wq.empty() ? c - m_empty_since : 0);
  }
  void account_queue(std::uint64_t c);
  std::uint32_t flat(const HbmBurst& b) const { return b.bg * m_bpg + b.bank; }

  HbmSpec m_spec;
  HbmControllerConfig m_cc;
  std::uint32_t m_bpg, m_bl;
  DoneFn m_done;
  CommandFn m_observer;
  TimingTable m_table;
  std::unique_ptr<TimingChecker> m_checker;
  std::vector<Bank> m_banks;
  std::uint64_t m_open_mask = 0;
  std::vector<HbmBurst> m_rq, m_wq;  // arrival order; front is oldest
  bool m_write_mode = false;
  bool m_refresh_on = false;
  std::uint64_t m_refresh_due = 0;
  std::uint32_t m_refresh_bank = 0;
  std::uint64_t m_row_bus_free = 0, m_col_bus_free = 0;
  std::uint64_t m_data_free = 0;   // first cycle the data bus is free
  std::uint64_t m_stepped = kNever;  // last cycle step() ran
  std::uint64_t m_next = kNever;
  std::uint64_t m_empty_since = 0;  // valid while both queues are empty
  std::uint64_t m_empty_total = 0;  // cycles with both queues empty, up to m_empty_since
  std::uint64_t m_empty_at_data_free = 0;
  std::uint64_t m_queue_mark = 0;
  ChannelStats s;
};

}  // namespace mxc
