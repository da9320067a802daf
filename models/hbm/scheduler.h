#pragma once
// FR-FCFS with a starvation cap: among the bursts of the active queue, the
// oldest ready row hit gets the column bus, the oldest ready activate or
// precharge gets the row bus; once the oldest burst has been bypassed
// `starvation_cap` times, only it is served until it completes.
//
// It visits banks, not bursts: all row hits of a bank wait for the same
// column-command time, and all bursts of a bank that miss need the same ACT
// or PRE, so each bank offers at most its oldest hit and its oldest miss.
#include <cstdint>
#include <limits>

#include "models/hbm/bank_state.h"
#include "models/hbm/burst_queue.h"
#include "models/hbm/refresh_policy.h"
#include "models/hbm/timing_table.h"

namespace mxc::hbm {

inline constexpr std::uint64_t kNoCycle = std::numeric_limits<std::uint64_t>::max();

/// What the scheduler chose for one cycle; kNone = nothing.
struct SchedulePick {
  BurstQueue::Index col = BurstQueue::kNone;  ///< Entry whose column command issues.
  BurstQueue::Index row = BurstQueue::kNone;  ///< Entry whose ACT or PRE issues.
  Cmd row_cmd = Cmd::kAct;
};

/// What pick() will choose at the cycle next_ready() returned, found by
/// next_ready()'s own scan of the banks (so a step scans them once, not
/// twice). Per command class: the earliest cycle a burst of that class can
/// issue and, among the bursts that can then, the oldest. It holds while
/// the queue, the refresh state and the direction stay as they were
/// (PcController checks that).
struct SchedulePlan {
  bool valid = false;  ///< False: next_ready took a path that plans nothing (starvation).
  std::uint64_t col_at = kNoCycle, row_at = kNoCycle;
  BurstQueue::Index col = BurstQueue::kNone, row = BurstQueue::kNone;
  Cmd row_cmd = Cmd::kAct;
  /// The ages of `col` and `row` with their banks (~0 when none;
  /// BurstQueue::order_of), for next_ready to carry one class's choice
  /// over to the next plan.
  std::uint64_t col_order = ~std::uint64_t{0}, row_order = ~std::uint64_t{0};
};

/// What next_ready may take over from the plan it made the call before
/// (the one in its `plan` argument), rather than scan every bank for it.
/// Row commands (ACT, PRE) and column commands constrain each other only
/// within a bank (rows_and_columns_meet_in_banks() checks the timing
/// table), and the scheduler gives a row command only to a bank without
/// row hits: so after a step that issued one class of command to one bank,
/// the other class's choice over all the other banks still holds, unless
/// another pseudo-channel sharing the command buses has taken that class's
/// bus past its planned cycle (next_ready checks).
enum class PlanKept : std::uint8_t {
  kNothing,
  kColumns,  ///< Only a row command issued since, to the bank given.
  kRows,     ///< Only a column command issued since, to the bank given.
};

class FrFcfsScheduler {
 public:
  explicit FrFcfsScheduler(std::uint32_t starvation_cap) : m_cap(starvation_cap) {}

  /// Commands to issue at `now` (a row is not closed while the queue still
  /// has hits on it).
  SchedulePick pick(const BurstQueue& q, const BankState& state, const RefreshPolicy& refresh,
                    std::uint64_t now) const;
  /// Earliest cycle > `now` at which some burst's next command may issue;
  /// `now` must not decrease from call to call. Fills `plan` for that cycle.
  /// With `kept` other than kNothing, `plan` holds the last call's plan,
  /// which was valid; since that call the queue changed only by the
  /// command, issued to `bank` at `now`, and the kept class's planned
  /// cycle is after `now`; the refresh state is unchanged, and the command
  /// buses are separate.
  std::uint64_t next_ready(BurstQueue& q, const BankState& state, const RefreshPolicy& refresh, std::uint64_t now,
                           SchedulePlan& plan, PlanKept kept = PlanKept::kNothing, std::uint32_t bank = 0) const;
  /// Whether `table` has row commands (ACT, PRE) and column commands delay
  /// each other only within a bank, as PlanKept needs.
  static bool rows_and_columns_meet_in_banks(const TimingTable& table);
  /// pick() at cycle `now` <= the cycle next_ready() returned with `plan`,
  /// nothing having changed since but the time.
  static SchedulePick planned(const SchedulePlan& plan, const BurstQueue& q, std::uint64_t now) {
    SchedulePick p;
    if (plan.col_at == now) p.col = plan.col;
    if (plan.row_at == now) p.row = plan.row, p.row_cmd = plan.row_cmd;
    if (p.col != BurstQueue::kNone && p.row != BurstQueue::kNone && q[p.col].bank == q[p.row].bank)
      p.row = BurstQueue::kNone;
    return p;
  }

 private:
  /// next_ready() with `kept` a constant.
  template <PlanKept kept>
  std::uint64_t next_ready_as(BurstQueue& q, const BankState& state, const RefreshPolicy& refresh, std::uint64_t now,
                              SchedulePlan& plan, std::uint32_t bank) const;
  /// The command entry `e` needs next, or false when it must wait for a
  /// condition (refresh, pending hits on the open row) rather than a time.
  bool needed(const QueueEntry& e, const BurstQueue& q, const BankState& state, const RefreshPolicy& refresh,
              bool force, Cmd* cmd) const;

  std::uint32_t m_cap;
};

}  // namespace mxc::hbm
