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
                                          std::uint64_t now) const {
  if (q.empty()) return kNoCycle;
  const QueueEntry& f = q[q.front()];
  if (f.bypassed >= m_cap && f.arrival <= now + 1) {
    // Starving (or about to be): only the oldest burst counts.
    if (f.arrival > now) return f.arrival;
    Cmd cmd;
    if (!needed(f, q, state, refresh, true, &cmd)) return kNoCycle;
    return std::max(state.earliest(cmd, f.bank), now + 1);
  }
  // Row hits: one column-command time per bank (a hit still in the frontend
  // may make this wake-up one cycle early, which is harmless).
  std::uint64_t next = kNoCycle;
  const Cmd col = f.write ? Cmd::kWr : Cmd::kRd;
  const std::uint64_t at = state.earliest_column(col, q.hit_banks(), [&](std::uint32_t b) { return refresh.blocks(b); });
  if (at != ~std::uint64_t{0}) next = std::max(at, now + 1);
  if (q.total_hits() >= q.size()) return next;  // every queued burst is a row hit
  // A burst still in the frontend; then each bank's row command for its
  // oldest arrived miss (as needed(), the common part of the time once).
  next = std::min(next, q.first_pending_arrival(now));
  const std::uint64_t act_floor = state.earliest_floor(Cmd::kAct), pre_floor = state.earliest_floor(Cmd::kPre);
  for_each_bank(q.miss_banks(), [&](std::uint32_t b) {
    const std::int64_t open = state.open_row(b);
    const bool closed = open == BankState::kClosed;
    if (!closed && q.hits(b)) return true;  // a conflict waits while the row has hits
    const std::uint64_t floor = std::max(closed ? act_floor : pre_floor, now + 1);
    if (floor >= next || refresh.blocks(b)) return true;
    if (q[closed ? q.bank_front(b) : q.bank_oldest(b, open, false)].arrival > now) return true;
    next = std::min(next, std::max(state.earliest_bank(closed ? Cmd::kAct : Cmd::kPre, b), floor));
    return next > now + 1;  // nothing can be earlier
  });
  return next;
}

}  // namespace mxc::hbm
