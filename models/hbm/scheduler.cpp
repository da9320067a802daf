#include "models/hbm/scheduler.h"

#include <algorithm>
#include <span>

#include "models/hbm/branch_free.h"

namespace mxc::hbm {

namespace {

using Index = BurstQueue::Index;

// The running choices of the bank scans (pick's and next_ready's). Each
// orders the banks offered by one 128-bit key, (time << 64) | order (the
// candidate's age and bank, BurstQueue::order_of), and keeps the smallest
// with conditional moves, not branches: which bank wins is data, and
// mispredicted branches cost more than the work they skip. The winner's
// burst and command are read back from its bank once the scan is done.
// Offering a bank twice with the same values changes nothing, and one
// offered with `ok` false changes nothing at all (its key is the largest).
using Key = unsigned __int128;
constexpr std::uint64_t kNoOrder = ~std::uint64_t{0};

inline Key make_key(std::uint64_t at, std::uint64_t order) { return (Key{at} << 64) | order; }
// A plain conditional: GCC compiles it to compare, subtract with borrow and
// two conditional moves (a mask made from the compare took a branch).
inline Key min_key(Key a, Key b) { return b < a ? b : a; }

struct Choice {
  Key key = ~Key{0};
  std::uint64_t at() const { return static_cast<std::uint64_t>(key >> 64); }
  std::uint64_t order() const { return static_cast<std::uint64_t>(key); }
  bool chosen() const { return order() != kNoOrder; }
  /// The chosen burst's bank (0 when none, for reads that selects discard).
  std::uint32_t bank() const { return BurstQueue::bank_of_order(select(chosen(), order(), std::uint64_t{0})); }
  /// The burst chosen, kNone when none.
  Index index(const BurstQueue& q) const { return select(chosen(), q.candidate(bank()).index, BurstQueue::kNone); }
};

/// The earliest column-command time over the banks offered, and the
/// oldest burst that has arrived by then among the banks with that time: a
/// burst not arrived by its bank's time keys with no order, so it sets the
/// time but loses to any arrived burst of the same time.
struct ColumnChoice : Choice {
  void offer(std::uint64_t t, const BurstQueue::Candidate& k, bool ok = true) {
    key = min_key(key, make_key(select(ok, t, kNoCycle), select(ok & (k.arrival <= t), k.order, kNoOrder)));
  }
};

/// The earliest row-command time over the banks offered (each at the later
/// of its command's time and its burst's arrival), oldest first on ties.
struct RowChoice : Choice {
  void offer(std::uint64_t t, const BurstQueue::Candidate& k, bool ok = true) {
    key = min_key(key, make_key(select(ok, t, kNoCycle), select(ok, k.order, kNoOrder)));
  }
  /// The chosen burst's command: ACT to a closed bank, else PRE.
  Cmd cmd(const BankState& state) const {
    return select(chosen() & (state.open_row(bank()) != BankState::kClosed), Cmd::kPre, Cmd::kAct);
  }
};

}  // namespace

inline bool FrFcfsScheduler::needed(const QueueEntry& e, const BurstQueue& q, const BankState& state,
                                    const RefreshPolicy& refresh, bool force, Cmd* cmd) const {
  if (refresh.blocks(e.bank)) return false;
  const std::int64_t open = state.open_row(e.bank);
  if (open == static_cast<std::int64_t>(e.row)) {
    *cmd = q.write() ? Cmd::kWr : Cmd::kRd;
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
  if (q.front_bypassed() >= m_cap && f.arrival <= now && !refresh.refreshing(f.bank, now)) {
    // Starving: only the oldest burst may issue (unless refresh holds its bank).
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
  // have arrived when a younger one has. Every bank able to issue now
  // offers time `now`, so the choices' keys order them by age.
  const Cmd col = q.write() ? Cmd::kWr : Cmd::kRd;
  const std::span<const std::uint64_t> hit_set = q.hit_banks(), miss_set = q.miss_banks();
  if (state.earliest_floor(col) <= now) {
    const BankState::BankTimes col_time = state.bank_times(col);
    ColumnChoice c;
    for_each_bank_of(
        hit_set.size(), [&](std::size_t w) { return refresh.unblocked(hit_set, w); },
        [&](std::uint32_t b) {
          c.offer(now, q.candidate(b), col_time(b) <= now);  // the bank's oldest hit
          return true;
        });
    if (c.at() == now) p.col = c.index(q);
  }
  // The row command goes to the oldest arrived burst that misses and whose
  // bank's ACT or PRE may issue now: as needed(), with the part of the time
  // common to all banks found once. A bank with hits has its row open and
  // its misses wait (a conflict waits while the row has hits).
  if (q.total_hits() < q.size()) {
    // ACT's and PRE's common parts, indexed by whether the row is open.
    const std::uint64_t floor[2] = {state.earliest_floor(Cmd::kAct), state.earliest_floor(Cmd::kPre)};
    RowChoice r;
    for_each_bank_of(
        miss_set.size(), [&](std::size_t w) { return refresh.unblocked(miss_set, w) & ~hit_set[w]; },
        [&](std::uint32_t b) {
          const bool open = state.open_row(b) != BankState::kClosed;
          const std::uint64_t t = std::max(state.row_bank_time(b, open), floor[open]);
          const BurstQueue::Candidate& k = q.candidate(b);  // no burst of the bank hits: its oldest misses
          r.offer(now, k, (t <= now) & (k.arrival <= now));
          return true;
        });
    if (r.at() == now) p.row = r.index(q), p.row_cmd = r.cmd(state);
  }
  // A row command and a column command to the same bank in one cycle would
  // conflict (the PRE would close the row the column command reads).
  if (p.col != kNone && p.row != kNone && q[p.col].bank == q[p.row].bank) p.row = kNone;
  return p;
}

bool FrFcfsScheduler::rows_and_columns_meet_in_banks(const TimingTable& table) {
  const auto row = [](Cmd c) { return c == Cmd::kAct || c == Cmd::kPre; };
  for (int p = 0; p < kNumCmds; ++p) {
    const Cmd prev = static_cast<Cmd>(p);
    if (!row(prev) && !is_column(prev)) continue;
    for (const TimingEntry& e : table.after(prev))
      if (e.scope != Scope::kBank && (row(prev) ? is_column(e.next) : row(e.next))) return false;
  }
  return true;
}

std::uint64_t FrFcfsScheduler::next_ready(BurstQueue& q, const BankState& state, const RefreshPolicy& refresh,
                                          std::uint64_t now, SchedulePlan& plan, PlanKept kept,
                                          std::uint32_t bank) const {
  // Another pseudo-channel of the channel may since have taken the bus of
  // the kept class past its planned cycle: that class is planned again.
  // (Before that cycle the bus changes nothing: each bank's time was at
  // least the planned one already.)
  if (kept == PlanKept::kColumns && plan.col_at < state.col_bus()) kept = PlanKept::kNothing;
  if (kept == PlanKept::kRows && plan.row_at < state.row_bus()) kept = PlanKept::kNothing;
  // One copy per case, chosen once here: `kept` is tested at several
  // places below, and as data each test was a mispredicted branch.
  switch (kept) {
    case PlanKept::kColumns: return next_ready_as<PlanKept::kColumns>(q, state, refresh, now, plan, bank);
    case PlanKept::kRows: return next_ready_as<PlanKept::kRows>(q, state, refresh, now, plan, bank);
    default: return next_ready_as<PlanKept::kNothing>(q, state, refresh, now, plan, bank);
  }
}

template <PlanKept kept>
std::uint64_t FrFcfsScheduler::next_ready_as(BurstQueue& q, const BankState& state, const RefreshPolicy& refresh,
                                             std::uint64_t now, SchedulePlan& plan, std::uint32_t bank) const {
  // The class `kept` keeps starts from the last plan's choice; every field
  // of the plan is written below (no copy of the old one, no reset first).
  ColumnChoice c;
  RowChoice r;
  if constexpr (kept == PlanKept::kColumns) c.key = make_key(plan.col_at, plan.col_order);
  else if constexpr (kept == PlanKept::kRows) r.key = make_key(plan.row_at, plan.row_order);
  if (q.empty()) {
    plan = SchedulePlan{};
    return kNoCycle;
  }
  const QueueEntry& f = q[q.front()];
  plan.valid = q.front_bypassed() < m_cap;
  // While refresh holds the oldest burst's bank it does not starve (pick()):
  // the banks are timed below, and its own is among them, so the wake-up
  // comes no later than its command; plan.valid stays false, so pick()
  // decides at that step.
  if (!plan.valid && f.arrival <= now + 1 && !refresh.refreshing(f.bank, now + 1)) {
    // Starving (or about to be): only the oldest burst counts.
    plan = SchedulePlan{};
    if (f.arrival > now) return f.arrival;
    Cmd cmd;
    if (!needed(f, q, state, refresh, true, &cmd)) return kNoCycle;
    return std::max(state.earliest(cmd, f.bank), now + 1);
  }
  // Not valid yet not starving: it may start starving before the cycle
  // returned, so the scans below time the next event but plan nothing.
  // Every bank's next command is timed in full: the earliest time of each
  // class is the next event, and the oldest burst that may issue at it is
  // what pick() will choose then (pick() at a cycle t needs a burst's
  // command legal by t and the burst arrived by t; no time returned here is
  // earlier than t, so it takes the bursts whose time is exactly t).
  const std::uint64_t lo = now + 1;
  // Row hits: one column-command time per bank, the bank's oldest hit (a
  // hit still in the frontend may make this wake-up one cycle early, which
  // is harmless; it is not planned then).
  const Cmd col = q.write() ? Cmd::kWr : Cmd::kRd;
  const std::span<const std::uint64_t> hit_set = q.hit_banks(), miss_set = q.miss_banks();
  if constexpr (kept == PlanKept::kColumns) {
    // Only `bank` took a row command: it had no hits before and may have
    // some now (an ACT); every other bank's column time is as it was.
    c.offer(std::max(state.earliest(col, bank), lo), q.candidate(bank), (q.hits(bank) != 0) & !refresh.blocks(bank));
  } else {
    const std::uint64_t col_floor = std::max(state.earliest_floor(col), lo);
    const BankState::BankTimes col_time = state.bank_times(col);
    for_each_bank_of(
        hit_set.size(), [&](std::size_t w) { return refresh.unblocked(hit_set, w); },
        [&](std::uint32_t b) {
          c.offer(std::max(col_time(b), col_floor), q.candidate(b));  // the bank's oldest hit
          return true;
        });
  }
  plan.col_at = c.at(), plan.col = c.index(q), plan.col_order = c.order();
  if (q.total_hits() >= q.size()) {  // every queued burst is a row hit
    plan.row_at = kNoCycle, plan.row = BurstQueue::kNone, plan.row_cmd = Cmd::kAct, plan.row_order = kNoOrder;
    return plan.col_at;
  }
  // Each bank's row command for its oldest miss (as needed(), the common
  // part of the time once), at the later of its legal time and its
  // arrival. A burst still in the frontend wakes the controller at its
  // arrival whatever its command's time (the bursts behind it arrive no
  // earlier). A bank with hits has its row open and the misses wait (a
  // conflict waits while the row has hits); without, its oldest burst
  // misses.
  if constexpr (kept == PlanKept::kRows) {
    // Only `bank` took a column command: it had hits, so it was not
    // offered; its last hit may have gone, leaving bursts that miss.
    const BurstQueue::Candidate& k = q.candidate(bank);
    const Cmd cmd = state.open_row(bank) == BankState::kClosed ? Cmd::kAct : Cmd::kPre;
    r.offer(std::max({state.earliest(cmd, bank), lo, k.arrival}), k,
            (q.hits(bank) == 0) & (k.index != BurstQueue::kNone) & !refresh.blocks(bank));
  } else {
    // ACT's and PRE's common parts, indexed by whether the row is open.
    const std::uint64_t floor[2] = {std::max(state.earliest_floor(Cmd::kAct), lo),
                                    std::max(state.earliest_floor(Cmd::kPre), lo)};
    for_each_bank_of(
        miss_set.size(), [&](std::size_t w) { return refresh.unblocked(miss_set, w) & ~hit_set[w]; },
        [&](std::uint32_t b) {
          // Whether the row is open is data: ACT or PRE by indexing.
          const bool open = state.open_row(b) != BankState::kClosed;
          const std::uint64_t t = std::max(state.row_bank_time(b, open), floor[open]);
          const BurstQueue::Candidate& k = q.candidate(b);  // no burst of the bank hits: its oldest misses
          r.offer(std::max(t, k.arrival), k);
          return true;
        });
  }
  plan.row_at = r.at(), plan.row = r.index(q), plan.row_cmd = r.cmd(state), plan.row_order = r.order();
  return std::min({plan.col_at, plan.row_at, q.first_pending_arrival(now)});
}

}  // namespace mxc::hbm
