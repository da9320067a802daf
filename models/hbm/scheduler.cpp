#include "models/hbm/scheduler.h"

#include <algorithm>

namespace mxc::hbm {

FrFcfsScheduler::FrFcfsScheduler(std::uint32_t banks, std::uint32_t starvation_cap)
    : m_cap(starvation_cap), m_hit_pending(banks, 0) {}

void FrFcfsScheduler::mark_hits(const std::vector<QueueEntry>& q, const BankState& state, std::uint64_t now) {
  std::fill(m_hit_pending.begin(), m_hit_pending.end(), 0);
  for (const QueueEntry& e : q)
    if (e.arrival <= now && state.open_row(e.bank) == static_cast<std::int64_t>(e.row)) m_hit_pending[e.bank] = 1;
}

bool FrFcfsScheduler::needed(const QueueEntry& e, const BankState& state, const RefreshPolicy& refresh, bool force,
                             Cmd* cmd) const {
  if (refresh.blocks(e.bank)) return false;
  const std::int64_t open = state.open_row(e.bank);
  if (open == static_cast<std::int64_t>(e.row)) {
    *cmd = e.write ? Cmd::kWr : Cmd::kRd;
    return true;
  }
  if (open == BankState::kClosed) {
    *cmd = Cmd::kAct;
    return true;
  }
  // Row conflict: close the row only when nobody still wants it.
  if (m_hit_pending[e.bank] && !force) return false;
  *cmd = Cmd::kPre;
  return true;
}

SchedulePick FrFcfsScheduler::pick(const std::vector<QueueEntry>& q, const BankState& state,
                                   const RefreshPolicy& refresh, std::uint64_t now) {
  SchedulePick p;
  if (q.empty()) return p;
  mark_hits(q, state, now);
  const bool starving = q.front().bypassed >= m_cap && q.front().arrival <= now;
  const std::size_t n = starving ? 1 : q.size();
  for (std::size_t i = 0; i < n && (p.col < 0 || p.row < 0); ++i) {
    const QueueEntry& e = q[i];
    if (e.arrival > now) break;  // queue is in arrival order
    Cmd cmd;
    if (!needed(e, state, refresh, starving, &cmd)) continue;
    if (is_column(cmd)) {
      if (p.col < 0 && state.earliest(cmd, e.bank) <= now) p.col = static_cast<int>(i);
    } else if (p.row < 0 && state.earliest(cmd, e.bank) <= now) {
      p.row = static_cast<int>(i);
      p.row_cmd = cmd;
    }
  }
  // A row command and a column command to the same bank in one cycle would
  // conflict (the PRE would close the row the column command reads).
  if (p.col >= 0 && p.row >= 0 && q[p.col].bank == q[p.row].bank) p.row = -1;
  return p;
}

std::uint64_t FrFcfsScheduler::next_ready(const std::vector<QueueEntry>& q, const BankState& state,
                                          const RefreshPolicy& refresh, std::uint64_t now) {
  std::uint64_t next = kNoCycle;
  if (q.empty()) return next;
  mark_hits(q, state, now + 1);
  const bool starving = q.front().bypassed >= m_cap && q.front().arrival <= now + 1;
  const std::size_t n = starving ? 1 : q.size();
  for (std::size_t i = 0; i < n; ++i) {
    const QueueEntry& e = q[i];
    if (e.arrival > now) {
      next = std::min(next, e.arrival);
      break;
    }
    Cmd cmd;
    if (!needed(e, state, refresh, starving, &cmd)) continue;
    next = std::min(next, std::max(state.earliest(cmd, e.bank), now + 1));
    if (next == now + 1) break;
  }
  return next;
}

}  // namespace mxc::hbm
