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

namespace mxc::hbm {

inline constexpr std::uint64_t kNoCycle = std::numeric_limits<std::uint64_t>::max();

/// What the scheduler chose for one cycle; kNone = nothing.
struct SchedulePick {
  BurstQueue::Index col = BurstQueue::kNone;  ///< Entry whose column command issues.
  BurstQueue::Index row = BurstQueue::kNone;  ///< Entry whose ACT or PRE issues.
  Cmd row_cmd = Cmd::kAct;
};

class FrFcfsScheduler {
 public:
  explicit FrFcfsScheduler(std::uint32_t starvation_cap) : m_cap(starvation_cap) {}

  /// Commands to issue at `now` (a row is not closed while the queue still
  /// has hits on it).
  SchedulePick pick(const BurstQueue& q, const BankState& state, const RefreshPolicy& refresh,
                    std::uint64_t now) const;
  /// Earliest cycle > `now` at which some burst's next command may issue;
  /// `now` must not decrease from call to call.
  std::uint64_t next_ready(BurstQueue& q, const BankState& state, const RefreshPolicy& refresh,
                           std::uint64_t now) const;

 private:
  /// The command entry `e` needs next, or false when it must wait for a
  /// condition (refresh, pending hits on the open row) rather than a time.
  bool needed(const QueueEntry& e, const BurstQueue& q, const BankState& state, const RefreshPolicy& refresh,
              bool force, Cmd* cmd) const;

  std::uint32_t m_cap;
};

}  // namespace mxc::hbm
