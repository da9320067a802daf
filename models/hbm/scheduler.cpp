#include "models/hbm/scheduler.h"

#include <algorithm>

namespace mxc::hbm {

inline bool FrFcfsScheduler::needed(const QueueEntry& e, const BurstQueue& q, const BankState& state,
                                    const RefreshPolicy& refresh, bool force, Cmd* cmd) const {
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
  if (q.hits(e.bank) && !force) return false;
  *cmd = Cmd::kPre;
  return true;
}

SchedulePick FrFcfsScheduler::pick(const BurstQueue& q, const BankState& state, const RefreshPolicy& refresh,
                                   std::uint64_t now) const {
  using Index = BurstQueue::Index;
  constexpr Index kNone = BurstQueue::kNone;
  SchedulePick p;
  if (q.empty()) return p;
  const QueueEntry& f = q[q.front()];
  if (f.bypassed >= m_cap && f.arrival <= now) {
    // Starving: only the oldest burst may issue.
    Cmd cmd;
    if (needed(f, q, state, refresh, true, &cmd) && state.earliest(cmd, f.bank) <= now) {
      if (is_column(cmd)) p.col = q.front();
      else p.row = q.front(), p.row_cmd = cmd;
    }
    return p;
  }
  // The column command goes to the oldest arrived row hit whose bank may
  // take it now; the queue holds one direction, so the pseudo-channel part
  // of the time is common to all banks. Arrivals never decrease along the
  // queue, so a bank's oldest hit is the only one of its hits that may
  // have arrived when a younger one has.
  const Cmd col = f.write ? Cmd::kWr : Cmd::kRd;
  if (state.earliest_floor(col) <= now) {
    for_each_bank(q.hit_banks(), [&](std::uint32_t b) {
      if (refresh.blocks(b) || state.earliest_bank(col, b) > now) return true;
      const Index i = q.bank_oldest(b, state.open_row(b), true);
      if (q[i].arrival <= now && (p.col == kNone || q[i].seq < q[p.col].seq)) p.col = i;
      return true;
    });
  }
  // The row command goes to the oldest arrived burst that misses and whose
  // bank's ACT or PRE may issue now: as needed(), with the part of the time
  // common to all banks checked once.
  if (q.total_hits() < q.size()) {
    const std::uint64_t act_floor = state.earliest_floor(Cmd::kAct), pre_floor = state.earliest_floor(Cmd::kPre);
    for_each_bank(q.miss_banks(), [&](std::uint32_t b) {
      const std::int64_t open = state.open_row(b);
      const bool closed = open == BankState::kClosed;
      // A conflict waits while the row still has hits.
      if (closed ? act_floor > now : q.hits(b) || pre_floor > now) return true;
      if (refresh.blocks(b)) return true;
      const Index i = closed ? q.bank_front(b) : q.bank_oldest(b, open, false);
      const QueueEntry& e = q[i];
      if (e.arrival > now || (p.row != kNone && e.seq > q[p.row].seq)) return true;
      const Cmd cmd = closed ? Cmd::kAct : Cmd::kPre;
      if (state.earliest_bank(cmd, b) <= now) p.row = i, p.row_cmd = cmd;
      return true;
    });
  }
  // A row command and a column command to the same bank in one cycle would
  // conflict (the PRE would close the row the column command reads).
  if (p.col != kNone && p.row != kNone && q[p.col].bank == q[p.row].bank) p.row = kNone;
  return p;
}

std::uint64_t FrFcfsScheduler::next_ready(BurstQueue& q, const BankState& state, const RefreshPolicy& refresh,
                                          std::uint64_t now, SchedulePlan& plan) const {
  using Index = BurstQueue::Index;
  constexpr Index kNone = BurstQueue::kNone;
  plan = SchedulePlan{};
  if (q.empty()) return kNoCycle;
  const QueueEntry& f = q[q.front()];
  if (f.bypassed >= m_cap) {
    if (f.arrival <= now + 1) {
      // Starving (or about to be): only the oldest burst counts.
      if (f.arrival > now) return f.arrival;
      Cmd cmd;
      if (!needed(f, q, state, refresh, true, &cmd)) return kNoCycle;
      return std::max(state.earliest(cmd, f.bank), now + 1);
    }
    // It may start starving before the cycle returned: no plan.
  } else {
    plan.valid = true;
  }
  // Every bank's next command is timed in full: the earliest time of each
  // class is the next event, and the oldest burst that may issue at it is
  // what pick() will choose then (pick() at a cycle t needs a burst's
  // command legal by t and the burst arrived by t; no time returned here is
  // earlier than t, so it takes the bursts whose time is exactly t).
  const std::uint64_t lo = now + 1;
  // Row hits: one column-command time per bank, the bank's oldest hit (a
  // hit still in the frontend may make this wake-up one cycle early, which
  // is harmless; it is not planned then).
  const Cmd col = f.write ? Cmd::kWr : Cmd::kRd;
  const std::uint64_t col_floor = std::max(state.earliest_floor(col), lo);
  for_each_bank(q.hit_banks(), [&](std::uint32_t b) {
    if (refresh.blocks(b)) return true;
    const std::uint64_t t = std::max(state.earliest_bank(col, b), col_floor);
    if (t > plan.col_at) return true;
    if (t < plan.col_at) plan.col_at = t, plan.col = kNone;
    const Index i = q.bank_oldest(b, state.open_row(b), true);
    if (q[i].arrival <= t && (plan.col == kNone || q[i].seq < q[plan.col].seq)) plan.col = i;
    return true;
  });
  if (q.total_hits() >= q.size()) return plan.col_at;  // every queued burst is a row hit
  // Each bank's row command for its oldest miss (as needed(), the common
  // part of the time once), at the later of its legal time and its
  // arrival. A burst still in the frontend wakes the controller at its
  // arrival whatever its command's time (the bursts behind it arrive no
  // earlier).
  const std::uint64_t act_floor = std::max(state.earliest_floor(Cmd::kAct), lo);
  const std::uint64_t pre_floor = std::max(state.earliest_floor(Cmd::kPre), lo);
  for_each_bank(q.miss_banks(), [&](std::uint32_t b) {
    const std::int64_t open = state.open_row(b);
    const bool closed = open == BankState::kClosed;
    if (!closed && q.hits(b)) return true;  // a conflict waits while the row has hits
    if (refresh.blocks(b)) return true;
    const Cmd cmd = closed ? Cmd::kAct : Cmd::kPre;
    std::uint64_t t = std::max(state.earliest_bank(cmd, b), closed ? act_floor : pre_floor);
    if (t > plan.row_at) return true;
    const Index i = q.bank_front(b);  // no burst of the bank hits: its oldest misses
    t = std::max(t, q[i].arrival);
    if (t > plan.row_at) return true;
    if (t < plan.row_at || plan.row == kNone || q[i].seq < q[plan.row].seq) plan.row_at = t, plan.row = i, plan.row_cmd = cmd;
    return true;
  });
  return std::min({plan.col_at, plan.row_at, q.first_pending_arrival(now)});
}

}  // namespace mxc::hbm
