#include "models/hbm/scheduler.h"

#include <algorithm>
#include <span>

namespace mxc::hbm {

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
  if (q.front_bypassed() >= m_cap && f.arrival <= now) {
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
  const Cmd col = q.write() ? Cmd::kWr : Cmd::kRd;
  if (state.earliest_floor(col) <= now) {
    for_each_bank(q.hit_banks(), [&](std::uint32_t b) {
      if (refresh.blocks(b) || state.earliest_bank(col, b) > now) return true;
      const BurstQueue::Candidate& k = q.candidate(b);  // the bank's oldest hit
      if (k.arrival <= now && (p.col == kNone || k.seq < q[p.col].seq)) p.col = k.index;
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
      const BurstQueue::Candidate& k = q.candidate(b);  // no hits: the bank's oldest burst misses
      if (k.arrival > now || (p.row != kNone && k.seq > q[p.row].seq)) return true;
      const Cmd cmd = closed ? Cmd::kAct : Cmd::kPre;
      if (state.earliest_bank(cmd, b) <= now) p.row = k.index, p.row_cmd = cmd;
      return true;
    });
  }
  // A row command and a column command to the same bank in one cycle would
  // conflict (the PRE would close the row the column command reads).
  if (p.col != kNone && p.row != kNone && q[p.col].bank == q[p.row].bank) p.row = kNone;
  return p;
}

namespace {

using Index = BurstQueue::Index;

// The running choices of next_ready's bank scans. Each orders the banks
// offered by one 128-bit key, (time << 64) | age, compared with a single
// unsigned compare: the comparison and the selects that follow compile to
// flag arithmetic and conditional moves, not branches (which bank wins is
// data, and mispredicted branches cost more than the work they skip).
// Offering a bank twice with the same values changes nothing.
using Key = unsigned __int128;
constexpr std::uint64_t kNoAge = ~std::uint64_t{0};

inline Key make_key(std::uint64_t at, std::uint64_t seq) { return (Key{at} << 64) | seq; }
/// `take ? a : b` by masks: GCC turns a plain select of a value the key
/// compare did not produce back into a conditional jump.
template <class T>
inline T select(bool take, T a, T b) {
  const std::uint32_t m = 0u - static_cast<std::uint32_t>(take);
  return static_cast<T>((static_cast<std::uint32_t>(a) & m) | (static_cast<std::uint32_t>(b) & ~m));
}

/// The earliest column-command time over the banks offered, and the
/// oldest burst that has arrived by then among the banks with that time: a
/// burst not arrived by its bank's time keys with no age, so it sets the
/// time but loses to any arrived burst of the same time.
struct ColumnChoice {
  Key key = ~Key{0};
  Index i = BurstQueue::kNone;
  void offer(std::uint64_t t, const BurstQueue::Candidate& k) {
    const Key mine = make_key(t, k.arrival <= t ? k.seq : kNoAge);
    const bool take = mine < key;
    key = take ? mine : key;
    i = select(take, k.index, i);
  }
  std::uint64_t at() const { return static_cast<std::uint64_t>(key >> 64); }
  std::uint64_t seq() const { return static_cast<std::uint64_t>(key); }
  Index index() const { return seq() == kNoAge ? BurstQueue::kNone : i; }
};

/// The earliest row-command time over the banks offered (each at the later
/// of its command's time and its burst's arrival), oldest first on ties.
struct RowChoice {
  Key key = ~Key{0};
  Index i = BurstQueue::kNone;
  Cmd cmd = Cmd::kAct;
  void offer(std::uint64_t t, const BurstQueue::Candidate& k, Cmd c) {
    const Key mine = make_key(t, k.seq);
    const bool take = mine < key;
    key = take ? mine : key;
    i = select(take, k.index, i);
    cmd = select(take, c, cmd);
  }
  std::uint64_t at() const { return static_cast<std::uint64_t>(key >> 64); }
  std::uint64_t seq() const { return static_cast<std::uint64_t>(key); }
};

}  // namespace

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
  // The class `kept` keeps starts from the last plan's choice; every field
  // of the plan is written below (no copy of the old one, no reset first).
  ColumnChoice c;
  RowChoice r;
  if (kept == PlanKept::kColumns) c = ColumnChoice{make_key(plan.col_at, plan.col_seq), plan.col};
  else if (kept == PlanKept::kRows) r = RowChoice{make_key(plan.row_at, plan.row_seq), plan.row, plan.row_cmd};
  if (q.empty()) {
    plan = SchedulePlan{};
    return kNoCycle;
  }
  const QueueEntry& f = q[q.front()];
  plan.valid = q.front_bypassed() < m_cap;
  if (!plan.valid && f.arrival <= now + 1) {
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
  if (kept == PlanKept::kColumns) {
    // Only `bank` took a row command: it had no hits before and may have
    // some now (an ACT); every other bank's column time is as it was.
    if (q.hits(bank) && !refresh.blocks(bank)) c.offer(std::max(state.earliest(col, bank), lo), q.candidate(bank));
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
  plan.col_at = c.at(), plan.col = c.index(), plan.col_seq = c.seq();
  if (q.total_hits() >= q.size()) {  // every queued burst is a row hit
    plan.row_at = kNoCycle, plan.row = BurstQueue::kNone, plan.row_cmd = Cmd::kAct, plan.row_seq = kNoAge;
    return plan.col_at;
  }
  // Each bank's row command for its oldest miss (as needed(), the common
  // part of the time once), at the later of its legal time and its
  // arrival. A burst still in the frontend wakes the controller at its
  // arrival whatever its command's time (the bursts behind it arrive no
  // earlier). A bank with hits has its row open and the misses wait (a
  // conflict waits while the row has hits); without, its oldest burst
  // misses.
  if (kept == PlanKept::kRows) {
    // Only `bank` took a column command: it had hits, so it was not
    // offered; its last hit may have gone, leaving bursts that miss.
    const BurstQueue::Candidate& k = q.candidate(bank);
    if (!q.hits(bank) && k.index != BurstQueue::kNone && !refresh.blocks(bank)) {
      const Cmd cmd = state.open_row(bank) == BankState::kClosed ? Cmd::kAct : Cmd::kPre;
      r.offer(std::max({state.earliest(cmd, bank), lo, k.arrival}), k, cmd);
    }
  } else {
    const std::uint64_t act_floor = std::max(state.earliest_floor(Cmd::kAct), lo);
    const std::uint64_t pre_floor = std::max(state.earliest_floor(Cmd::kPre), lo);
    const BankState::BankTimes act_time = state.bank_times(Cmd::kAct), pre_time = state.bank_times(Cmd::kPre);
    for_each_bank_of(
        miss_set.size(), [&](std::size_t w) { return refresh.unblocked(miss_set, w) & ~hit_set[w]; },
        [&](std::uint32_t b) {
          // Both the ACT and the PRE time are read: whether the row is open is data too.
          const bool closed = state.open_row(b) == BankState::kClosed;
          const std::uint64_t act = std::max(act_time(b), act_floor), pre = std::max(pre_time(b), pre_floor);
          const BurstQueue::Candidate& k = q.candidate(b);  // no burst of the bank hits: its oldest misses
          r.offer(std::max(closed ? act : pre, k.arrival), k, closed ? Cmd::kAct : Cmd::kPre);
          return true;
        });
  }
  plan.row_at = r.at(), plan.row = r.i, plan.row_cmd = r.cmd, plan.row_seq = r.seq();
  return std::min({plan.col_at, plan.row_at, q.first_pending_arrival(now)});
}

}  // namespace mxc::hbm
