#include "models/hbm/scheduler.h"

#include <algorithm>

namespace mxc::hbm {

FrFcfsScheduler::FrFcfsScheduler(std::uint32_t banks, std::uint32_t starvation_cap)
    : m_cap(starvation_cap), m_memo(banks * 3, 0), m_memo_gen(banks * 3, 0) {}

inline std::uint64_t FrFcfsScheduler::earliest(const BankState& state, Cmd cmd, std::uint32_t bank) {
  // Within one scan the state is fixed and a queue holds one direction, so
  // (bank, column / ACT / PRE) identifies the answer.
  const std::uint32_t kind = is_column(cmd) ? 0 : cmd == Cmd::kAct ? 1 : 2;
  const std::uint32_t i = bank * 3 + kind;
  if (m_memo_gen[i] != m_gen) {
    m_memo_gen[i] = m_gen;
    m_memo[i] = state.earliest(cmd, bank);
  }
  return m_memo[i];
}

inline bool FrFcfsScheduler::needed(const QueueEntry& e, const HitCounts& hits, const BankState& state,
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
  if (hits[e.bank] && !force) return false;
  *cmd = Cmd::kPre;
  return true;
}

SchedulePick FrFcfsScheduler::pick(const BurstQueue& q, HitCounts& hits, const BankState& state,
                                   const RefreshPolicy& refresh, std::uint64_t now) {
  SchedulePick p;
  if (q.empty()) return p;
  // The entries by plain pointer: the memo's stores could alias the queue's
  // own fields and force them to be reloaded on every iteration.
  const QueueEntry* const qe = q.begin();
  const std::size_t size = q.size();
  ++m_gen;
  const bool starving = qe[0].bypassed >= m_cap && qe[0].arrival <= now;
  const std::size_t n = starving ? 1 : size;
  // The column command goes to the oldest ready row hit, the row command to
  // the oldest ready burst that is not a hit; both among the bursts that
  // have arrived (the queue is in arrival order). Each scan stops once it
  // has seen every burst of its kind (hits.total() of them are hits).
  std::size_t hits_left = hits.total();
  for (std::size_t i = 0; i < n && hits_left; ++i) {
    const QueueEntry& e = qe[i];
    if (e.arrival > now) break;
    if (state.open_row(e.bank) != static_cast<std::int64_t>(e.row)) continue;
    --hits_left;
    if (refresh.blocks(e.bank)) continue;
    const Cmd cmd = e.write ? Cmd::kWr : Cmd::kRd;
    if (earliest(state, cmd, e.bank) <= now) {
      p.col = static_cast<int>(i);
      break;
    }
  }
  if (hits.total() < size) {
    // Bursts below hits_below() are hits: start there, and move it past the
    // hits found on the way.
    // A burst that misses needs its bank's ACT or PRE, whichever row it
    // wants: once a bank's row command is known not to issue now, its
    // other missing bursts are skipped (a bit per bank, up to 64 banks).
    const bool by_bank = hits.has_mask();
    std::uint64_t refused = 0;
    std::size_t misses_left = size - hits.total();
    std::size_t i = std::min(hits.hits_below(), n);
    for (; i < n && misses_left; ++i) {
      const QueueEntry& e = qe[i];
      if (e.arrival > now) break;
      if (state.open_row(e.bank) == static_cast<std::int64_t>(e.row)) {
        if (i == hits.hits_below()) hits.set_hits_below(i + 1);
        continue;
      }
      --misses_left;
      const std::uint64_t bit = by_bank ? std::uint64_t{1} << e.bank : 0;
      if (refused & bit) continue;
      Cmd cmd;
      if (needed(e, hits, state, refresh, starving, &cmd) && earliest(state, cmd, e.bank) <= now) {
        p.row = static_cast<int>(i);
        p.row_cmd = cmd;
        break;
      }
      refused |= bit;
    }
  }
  // A row command and a column command to the same bank in one cycle would
  // conflict (the PRE would close the row the column command reads).
  if (p.col >= 0 && p.row >= 0 && qe[p.col].bank == qe[p.row].bank) p.row = -1;
  return p;
}

std::uint64_t FrFcfsScheduler::next_ready(const BurstQueue& q, const HitCounts& hits,
                                          const BankState& state, const RefreshPolicy& refresh, std::uint64_t now) {
  std::uint64_t next = kNoCycle;
  if (q.empty()) return next;
  const QueueEntry* const qe = q.begin();  // as in pick()
  const std::size_t size = q.size();
  ++m_gen;
  const bool starving = qe[0].bypassed >= m_cap && qe[0].arrival <= now + 1;
  const std::size_t n = starving ? 1 : size;
  std::size_t first = 0;
  if (!starving) {
    // Row hits: one column command time per bank (a hit still in the
    // frontend may make this wake-up one cycle early, which is harmless).
    const Cmd col = qe[0].write ? Cmd::kWr : Cmd::kRd;
    const auto blocked = [&](std::uint32_t b) { return refresh.blocks(b); };
    const std::uint64_t at = hits.has_mask() ? state.earliest_column_mask(col, hits.mask(), blocked)
                                             : state.earliest_column(col, hits.per_bank(), blocked);
    if (at != ~std::uint64_t{0}) next = std::max(at, now + 1);
    if (hits.total() >= size) return next;  // every queued burst is a row hit
    // The hits below hits_below() are counted above; only the first burst
    // still in the frontend, if it is among them, matters.
    first = std::min(hits.hits_below(), n);
    if (first > 0 && qe[first - 1].arrival > now) {
      while (first > 1 && qe[first - 2].arrival > now) --first;
      return std::min(next, qe[first - 1].arrival);
    }
  }
  // As in pick(), the missing bursts of one bank need the same command:
  // each bank is counted once (up to 64 banks).
  const bool by_bank = hits.has_mask() && !starving;
  std::uint64_t seen = 0;
  for (std::size_t i = first; i < n && next > now + 1; ++i) {
    const QueueEntry& e = qe[i];
    if (e.arrival > now) {
      next = std::min(next, e.arrival);
      break;
    }
    if (!starving && state.open_row(e.bank) == static_cast<std::int64_t>(e.row)) continue;  // counted above
    const std::uint64_t bit = by_bank ? std::uint64_t{1} << e.bank : 0;
    if (seen & bit) continue;
    seen |= bit;
    Cmd cmd;
    if (!needed(e, hits, state, refresh, starving, &cmd)) continue;
    next = std::min(next, std::max(earliest(state, cmd, e.bank), now + 1));
  }
  return next;
}

}  // namespace mxc::hbm
