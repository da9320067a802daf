#pragma once
// FR-FCFS with a starvation cap: among the bursts of the active queue, the
// oldest ready row hit gets the column bus, the oldest ready activate or
// precharge gets the row bus; once the oldest burst has been bypassed
// `starvation_cap` times, only it is served until it completes.
#include <cstdint>
#include <limits>
#include <vector>

#include "models/hbm/bank_state.h"
#include "models/hbm/burst_queue.h"
#include "models/hbm/hit_counts.h"
#include "models/hbm/queue_entry.h"
#include "models/hbm/refresh_policy.h"

namespace mxc::hbm {

inline constexpr std::uint64_t kNoCycle = std::numeric_limits<std::uint64_t>::max();

/// What the scheduler chose for one cycle; index -1 = nothing.
struct SchedulePick {
  int col = -1;       ///< Entry whose column command issues.
  int row = -1;       ///< Entry whose ACT or PRE issues.
  Cmd row_cmd = Cmd::kAct;
};

class FrFcfsScheduler {
 public:
  FrFcfsScheduler(std::uint32_t banks, std::uint32_t starvation_cap);

  /// Commands to issue at `now`. `hits[b]` = queued bursts of this queue that
  /// hit bank b's open row (a row is not closed while it still has hits).
  /// May raise `hits.hits_below()` over the row hits it scans.
  SchedulePick pick(const BurstQueue& q, HitCounts& hits,
                    const BankState& state, const RefreshPolicy& refresh, std::uint64_t now);
  /// Earliest cycle > `now` at which some burst's next command may issue.
  std::uint64_t next_ready(const BurstQueue& q, const HitCounts& hits,
                           const BankState& state, const RefreshPolicy& refresh, std::uint64_t now);

 private:
  /// The command entry `e` needs next, or false when it must wait for a
  /// condition (refresh, pending hits on the open row) rather than a time.
  bool needed(const QueueEntry& e, const HitCounts& hits, const BankState& state,
              const RefreshPolicy& refresh, bool force, Cmd* cmd) const;
  /// state.earliest(), memoised per bank and command kind within one scan.
  std::uint64_t earliest(const BankState& state, Cmd cmd, std::uint32_t bank);

  std::uint32_t m_cap;
  std::vector<std::uint64_t> m_memo;      // [bank * 3 + kind]
  std::vector<std::uint32_t> m_memo_gen;  // valid when equal to m_gen
  std::uint32_t m_gen = 1;
};

}  // namespace mxc::hbm
