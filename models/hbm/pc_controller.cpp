#include "models/hbm/pc_controller.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/hbm/branch_free.h"
#include "models/hbm/timing_checker.h"

namespace mxc::hbm {

PcController::PcController(std::uint32_t id, const MemoryConfig& cfg, BurstSink& sink, TimingChecker* checker,
                           CommandBuses* buses)
    : m_sink(sink),
      m_checker(checker),
      m_notify(checker != nullptr),
      m_cap(cfg.controller.starvation_cap),
      m_high(cfg.controller.write_high_watermark),
      m_low(cfg.controller.write_low_watermark),
      m_frontend(cfg.controller.frontend_cycles),
      m_burst(cfg.device.t.burst_cycles),
      m_read_done(cfg.device.t.CL + cfg.device.t.burst_cycles + cfg.controller.backend_cycles),
      m_write_done(cfg.device.t.CWL + cfg.device.t.burst_cycles + cfg.controller.backend_cycles),
      m_fast(cfg.fast_path && !cfg.every_cycle),
      m_every_cycle(cfg.every_cycle),
      m_closed_page(cfg.controller.page_policy == PagePolicy::kClosed),
      m_dual(cfg.controller.dual_command),
      m_keep_plans(cfg.controller.dual_command &&
                   FrFcfsScheduler::rows_and_columns_meet_in_banks(TimingTable(cfg.device.t))),
      m_reads(cfg.device.org.banks(), false),
      m_writes(cfg.device.org.banks(), true),
      m_refresh(cfg.controller.refresh, cfg.device.t, cfg.device.org.banks(), cfg.controller.refresh_postpone),
      m_state(cfg.device.org, cfg.device.t, cfg.controller.dual_command, buses),
      m_id(id),
      // With a shared row bus the channel's idle pseudo-channels refresh
      // one after the other from the due cycle (turn_delay), within the interval.
      m_skip_span(m_fast && m_refresh.idle_refreshes_on_time(cfg.device.t) &&
                          (buses == nullptr || m_refresh.interval() > cfg.device.org.pseudo_channels)
                      ? m_refresh.round() * m_refresh.interval()
                      : kNoCycle),
      m_place(buses ? id % cfg.device.org.pseudo_channels : 0),
      m_turns(buses ? cfg.device.org.pseudo_channels : 1),
      m_stuck_cycles(kStuckRounds * m_refresh.round() * m_refresh.interval()),
      m_read_cap(cfg.controller.read_queue),
      m_write_cap(cfg.controller.write_queue),
      m_sched(cfg.controller.starvation_cap) {
  s_stats.bank_acts.assign(cfg.device.org.banks(), 0);
  // The reference steps from cycle 0, work or not.
  m_next = m_every_cycle ? 0 : m_refresh.next_due();
}

bool PcController::can_skip_idle(std::uint64_t cycle) const {
  // Only when nothing else would happen: no bursts, no command observed
  // (the checker and timelines see every command), reads mode, every bank
  // closed, and no bank's refresh held past the next due cycle by earlier
  // commands. Then every refresh up to `cycle` issues at its due cycle
  // (idle_refreshes_on_time: one refresh never delays the next), and a
  // step would only issue it and sleep until the next one.
  if (m_next > cycle || cycle - m_next < m_skip_span || busy()) return false;
  if (m_notify || m_write_mode || m_refresh.pending() || m_refresh.owed() != 0 || m_next != m_refresh.next_due() ||
      m_state.open_banks() != 0)
    return false;
  Cmd cmd;
  std::uint32_t bank;
  m_refresh.wanted(m_state, &cmd, &bank);
  for (std::uint32_t b = 0; b < m_refresh.round(); ++b)
    if (m_state.earliest(cmd, cmd == Cmd::kRefSb ? b : bank) > m_next) return false;
  return (cycle - m_next) / m_refresh.interval() + 1 > m_refresh.round();  // more than a round due
}

std::uint64_t PcController::turn_delay(std::uint64_t due) const {
  // In cycle t the channel's pseudo-channels take the buses in turn from
  // number t mod m_turns (HbmModel::step_in_turn): each that finds the row
  // bus taken tries again the next cycle, so number p issues (p - due) mod
  // m_turns cycles late.
  return (m_place + m_turns - due % m_turns) % m_turns;
}

void PcController::skip_idle(std::uint64_t cycle) {
  // With the row bus shared, the channel's idle pseudo-channels all find
  // their refresh due in the same cycle and issue it one after the other
  // (turn_delay); one d cycles late has taken d + 1 steps.
  Cmd cmd;
  std::uint32_t bank;
  m_refresh.wanted(m_state, &cmd, &bank);
  const std::uint64_t interval = m_refresh.interval();
  const std::uint64_t due = (cycle - m_next) / interval + 1;  // refreshes due in [m_next, cycle]
  const std::uint64_t n = due - m_refresh.round();
  // The delays repeat with the due cycles mod m_turns: sum one period (at
  // most m_turns refreshes), then the whole periods and the rest.
  std::uint64_t period = 1;
  while ((m_next + period * interval) % m_turns != m_next % m_turns) ++period;
  std::uint64_t per_period = 0, rest = 0;
  for (std::uint64_t i = 0; i < period; ++i) {
    const std::uint64_t d = turn_delay(m_next + i * interval);
    per_period += d;
    if (i < n % period) rest += d;
  }
  const std::uint64_t late = n / period * per_period + rest;
  const std::uint64_t last_due = m_next + (n - 1) * interval;
  const std::uint64_t last = last_due + turn_delay(last_due);
  s_stats.refresh_bank_cycles += m_refresh.skip(n, late, last);
  s_stats.refreshes += n;
  s_stats.steps += n + late;
  m_skipped_refreshes += n;
  s_stats.last_cycle = last;
  m_clk = m_counted = last;  // the queues are empty: no occupancy to count
  m_next = m_refresh.next_due();
}

void PcController::check_stuck(std::uint64_t c) const {
  if (!busy() || c <= std::max(m_bus_free, m_busy_since) + m_stuck_cycles) return;
  throw std::runtime_error(
      "HBM pseudo-channel " + std::to_string(m_id) + ": no column command for " +
      std::to_string(c - std::max(m_bus_free, m_busy_since)) + " cycles (" + std::to_string(kStuckRounds) +
      " refresh rounds) with bursts queued, at cycle " + std::to_string(c) +
      ": the device timings leave no time between refreshes for a row to open and be read or written "
      "(compare tRCDRD, tRCDWR, tRAS and tRC with tREFI - tRFC, or tREFIsb x banks - tRFCsb)");
}

void PcController::charge_stall(const QueueEntry& e, std::uint64_t legal, std::uint64_t rules_at,
                                Constraint rules_why, std::uint64_t c) {
  // Charge the wait to the timing rule that made the command late, up to
  // when the rules allowed it; the rest to the command bus, which another
  // pseudo-channel of the channel held then (a one-cycle wait for the bus
  // at the end of a turnaround is the bus's cycle, not the whole wait).
  const std::uint64_t from = e.waiting_since;
  if (legal > from) {
    const std::uint64_t split = std::min(std::max(rules_at, from), legal);
    s_stats.stall_cycles[static_cast<int>(rules_why)] += split - from;
    s_stats.stall_cycles[static_cast<int>(Constraint::kCmdBus)] += legal - split;
  }
  s_stats.stall_cycles[0] += c - std::max(legal, from);
}

void PcController::notify(const DramCommand& cmd) {
  if (m_checker) m_checker->on_command(m_id, cmd);
  if (m_observer && *m_observer) (*m_observer)(m_id, cmd);
}

// Inline, as issue_column and compute_next below: each runs once or more on
// most steps, and as calls their prologues and epilogues (the controller's
// state in many registers) cost more than their bodies' duplicates.
[[gnu::always_inline]] inline void PcController::issue(Cmd cmd, QueueEntry* e, std::uint32_t bank,
                                                       std::uint32_t row, std::uint32_t col, std::uint64_t c) {
  if (e) {
    // Row commands: general steps. The stall is charged by the rules' part and the bus's.
    Constraint rules_why = Constraint::kNone;
    std::uint64_t rules_at = 0;
    const std::uint64_t legal = m_state.earliest_branch_free(cmd, bank, nullptr, &rules_at, &rules_why);
    charge_stall(*e, legal, rules_at, rules_why, c);
    e->waiting_since = c + 1;
    if (e->outcome == RowOutcome::kUnknown) {
      e->outcome = cmd == Cmd::kAct ? RowOutcome::kMiss : RowOutcome::kConflict;
      if (e->outcome == RowOutcome::kMiss) ++s_stats.row_misses;
      else ++s_stats.row_conflicts;
    }
  }
  m_state.issue(cmd, bank, row, c);
  if (cmd == Cmd::kAct) {
    m_reads.row_opened(bank, row);
    m_writes.row_opened(bank, row);
  } else if (cmd == Cmd::kPre) {
    m_reads.row_closed(bank);
    m_writes.row_closed(bank);
  } else if (cmd == Cmd::kPreA) {
    m_reads.all_closed();
    m_writes.all_closed();
  }
  observe(cmd, bank, row, col, c);
  switch (cmd) {
    case Cmd::kAct: ++s_stats.acts, ++s_stats.bank_acts[bank]; break;
    case Cmd::kPre:
    case Cmd::kPreA: ++s_stats.pres; break;
    case Cmd::kRefAb:
    case Cmd::kRefSb:
      ++s_stats.refreshes;
      // (Its blocking span, for the statistics, is the refresh policy's.)
      s_stats.refresh_bank_cycles += m_refresh.on_issue(cmd, c);
      check_stuck(c);
      break;
    default: break;
  }
}

inline BurstQueue::Index PcController::streaming_pick(const BurstQueue& q, std::uint64_t c) const {
  // FrFcfsScheduler::pick with every burst a row hit and no refresh pending:
  // no row-command candidate exists, so it returns the first burst (of the
  // oldest alone when starving) that has arrived and whose column command is
  // legal, stopping at the first one still in the frontend. The bursts are
  // visited in arrival order: the first ones are usually ready.
  if (q.empty()) return BurstQueue::kNone;
  const QueueEntry& f = q[q.front()];
  const bool starving = q.front_bypassed() >= m_cap && f.arrival <= c;
  // The queue holds one direction, so the pseudo-channel and command-bus
  // part of earliest() is common to all its bursts.
  const Cmd cmd = q.write() ? Cmd::kWr : Cmd::kRd;
  if (m_state.earliest_floor(cmd) > c) return BurstQueue::kNone;
  for (BurstQueue::Index i = q.front(); i != BurstQueue::kNone; i = q.next(i)) {
    const QueueEntry& e = q[i];
    if (e.arrival > c) break;
    if (m_state.earliest_bank(cmd, e.bank) <= c) return i;
    if (starving) break;
  }
  return BurstQueue::kNone;
}

[[gnu::always_inline]] inline std::uint64_t PcController::streaming_next(std::uint64_t c) {
  // compute_next with no refresh pending, specialised as
  // FrFcfsScheduler::next_ready is when every burst is a row hit.
  // Called after a streaming step only: its column command removed one row
  // hit and left refresh alone, so every queued burst still hits and no
  // refresh is pending.
  // With bursts queued the controller is busy and pays nothing it owes:
  // only the due cycle counts until the queue empties.
  const BurstQueue& q = active();
  const std::uint64_t n = due_wake(c);
  if (mode_switch_due()) return std::min(n, c + 1);
  if (q.empty()) return refresh_wake(c);
  const QueueEntry& f = q[q.front()];
  const Cmd col = q.write() ? Cmd::kWr : Cmd::kRd;
  std::uint64_t next;
  if (q.front_bypassed() >= m_cap && f.arrival <= c + 1) {
    next = f.arrival > c ? f.arrival : std::max(m_state.earliest(col, f.bank), c + 1);
  } else {
    const std::uint64_t at = m_state.earliest_column(col, q.hit_banks(), [](std::uint32_t) { return false; });
    next = at == ~std::uint64_t{0} ? kNoCycle : std::max(at, c + 1);
  }
  return std::min(n, next);
}

void PcController::take_refresh_span(const RefreshPolicy::Span& span, std::uint64_t ready, std::uint64_t held,
                                     std::uint64_t c, std::uint64_t& charge, std::uint64_t& tail) {
  // The refresh span's part in [ready, c): within [ready, held) it comes out
  // of what held the burst, after held out of the time no burst waited.
  const std::uint64_t from = std::min(std::max(span.start, ready), c);
  const std::uint64_t to = std::max(std::min(span.end, c), from);
  const std::uint64_t in_held = std::min(to, held) - std::min(from, held);
  s_stats.refresh_idle_cycles += to - from;
  charge -= in_held;
  tail -= to - from - in_held;
}

template <bool kBranchFree>
[[gnu::always_inline]] inline void PcController::issue_column(BurstQueue& q, BurstQueue::Index index,
                                                              std::uint64_t c) {
  QueueEntry& e = q[index];
  const std::uint32_t bank = e.bank;
  const bool write = q.write();
  // Closed page: auto-precharge unless another queued burst (either
  // direction) wants the row; those are exactly the bank's other row hits.
  const bool ap = m_closed_page && m_reads.hits(bank) + m_writes.hits(bank) == 1;
  const Cmd cmd = write ? (ap ? Cmd::kWrA : Cmd::kWr) : (ap ? Cmd::kRdA : Cmd::kRd);
  Constraint rules_why = Constraint::kNone;
  std::uint64_t rules_at = 0;
  const std::uint64_t legal = kBranchFree ? m_state.earliest_branch_free(cmd, bank, nullptr, &rules_at, &rules_why)
                                          : m_state.earliest(cmd, bank, nullptr, &rules_at, &rules_why);
  charge_stall(e, legal, rules_at, rules_why, c);
  // Why the data bus sat idle before this burst, in [m_bus_free, c): no
  // burst waiting until `ready`; then refresh for the part of its bank's
  // last refresh span after `ready` (a refresh while nothing waited cost
  // nothing), and the constraint that held the burst (a miss or a conflict
  // charged as such: the burst had to open its row) for the rest. Nothing
  // else can fall in a refresh span: a refresh blocks every burst of its
  // banks, so the bank's last span is the only one after `ready`.
  const bool miss = e.outcome == RowOutcome::kMiss, conflict = e.outcome == RowOutcome::kConflict;
  const std::uint64_t waiting = kBranchFree ? select(miss || conflict, e.arrival, e.waiting_since)
                                            : (miss || conflict ? e.arrival : e.waiting_since);
  const std::uint64_t ready = std::min(std::max(waiting, m_bus_free), c);
  const std::uint64_t held = std::min(std::max(legal, ready), c);
  s_stats.bus_idle_cycles[0] += ready - m_bus_free;
  std::uint64_t charge = held - ready, tail = c - held;  // to what held the burst, then to no burst waiting
  // Usually the last refresh ended before the burst was ready: nothing to take.
  if (const RefreshPolicy::Span& span = m_refresh.span(bank); span.end > ready) [[unlikely]]
    take_refresh_span(span, ready, held, c, charge, tail);
  s_stats.bus_idle_cycles[0] += tail;
  // A row hit held by a timing rule and then by the command bus: the bus's
  // part is from when the rules allowed it (a miss or a conflict is charged
  // whole to its row).
  const std::uint64_t by_bus = std::min(held - std::min(std::max(rules_at, ready), held), charge);
  if constexpr (kBranchFree) {
    // Whether the burst hit, missed or conflicted is data: the same charges
    // as below, by an index instead of branches.
    std::uint64_t* const held_by[3] = {&s_stats.bus_idle_cycles[static_cast<int>(rules_why)],
                                       &s_stats.miss_idle_cycles, &s_stats.conflict_idle_cycles};
    const std::uint64_t to_bus = select(miss || conflict, std::uint64_t{0}, by_bus);
    *held_by[miss + 2 * conflict] += charge - to_bus;
    s_stats.bus_idle_cycles[static_cast<int>(Constraint::kCmdBus)] += to_bus;
    // No row command served it: a row hit (kUnknown | 1 == kHit; others unchanged).
    static_assert(static_cast<int>(RowOutcome::kUnknown) == 0 && static_cast<int>(RowOutcome::kHit) == 1);
    const bool first = e.outcome == RowOutcome::kUnknown;
    e.outcome = static_cast<RowOutcome>(static_cast<std::uint8_t>(e.outcome) | static_cast<std::uint8_t>(first));
    s_stats.row_hits += first;
  } else {
    if (miss) {
      s_stats.miss_idle_cycles += charge;
    } else if (conflict) {
      s_stats.conflict_idle_cycles += charge;
    } else {
      s_stats.bus_idle_cycles[static_cast<int>(rules_why)] += charge - by_bus;
      s_stats.bus_idle_cycles[static_cast<int>(Constraint::kCmdBus)] += by_bus;
    }
    if (e.outcome == RowOutcome::kUnknown) {
      e.outcome = RowOutcome::kHit;
      ++s_stats.row_hits;
    }
  }
  m_bus_free = c + m_burst;

  m_state.issue(cmd, bank, e.row, c);
  observe(cmd, bank, e.row, e.col, c);
  if (write) {
    ++s_stats.write_bursts;
    m_sink.burst_issued(e.slot, c + m_write_done);
  } else {
    ++s_stats.read_bursts;
    m_sink.burst_issued(e.slot, c + m_read_done);
  }
  // Bypassed only when it could have gone instead: not while refresh holds its bank.
  if (index != q.front() && q[q.front()].arrival <= c && !m_refresh.refreshing(q[q.front()].bank, c))
    q.bypass_front();
  // With auto-precharge this was the row's only hit: no hit counts change
  // but its own.
  q.erase_hit(index);
}

[[gnu::always_inline]] inline std::uint64_t PcController::compute_next(std::uint64_t c, PlanKept kept,
                                                                      std::uint32_t bank) {
  std::uint64_t n = kNoCycle;
  if (m_refresh.pending()) {
    Cmd cmd;
    std::uint32_t refresh_bank;
    m_refresh.wanted(m_state, &cmd, &refresh_bank);
    n = std::min(n, std::max(m_state.earliest(cmd, refresh_bank), c + 1));
  } else {
    n = refresh_wake(c);
  }
  // A mode switch is decided at the next step; wake for it.
  if (mode_switch_due()) return std::min(n, c + 1);
  m_plan_refresh = m_refresh.pending();
  return std::min(n, m_sched.next_ready(active(), m_state, m_refresh, c, m_plan, kept, bank));
}

void PcController::step(std::uint64_t c) {
  count_occupancy(c);
  m_clk = c;
  s_stats.last_cycle = c;
  ++s_stats.steps;
  const bool plan = m_plan.valid;  // made for this step by the last one, nothing queued since
  m_plan.valid = false;

  // Write draining between watermarks; an otherwise idle controller drains all.
  if (mode_switch_due()) m_write_mode = !m_write_mode;

  m_refresh.update(c, busy(), s_stats.refreshes_postponed);
  bool row_used = false;
  if (m_refresh.pending()) {
    Cmd cmd;
    std::uint32_t bank;
    m_refresh.wanted(m_state, &cmd, &bank);
    if (m_state.earliest(cmd, bank) <= c) {
      issue(cmd, nullptr, bank, 0, 0, c);
      row_used = true;
    }
  }

  BurstQueue& q = active();
  // Every queued burst of the active direction hits its open row and no
  // refresh is pending: no row command can be wanted, so the step reduces
  // to "oldest ready row hit takes the column bus" (see streaming_pick).
  if (m_fast && !row_used && !m_refresh.pending() && q.total_hits() == q.size()) {
    ++m_streaming_steps;
    const BurstQueue::Index col = streaming_pick(q, c);
    if (col != BurstQueue::kNone) issue_column<false>(q, col, c);
    m_next = streaming_next(c);
    return;
  }
  // The plan holds unless refresh changed since it was made (it fell due
  // or issued a command). The direction cannot have changed: compute_next
  // plans nothing when it is about to.
  SchedulePick p;
  const bool planned = m_fast && plan && !row_used && m_refresh.pending() == m_plan_refresh;
  if (planned) {
    ++m_planned_steps;
    p = FrFcfsScheduler::planned(m_plan, q, c);
    // Another pseudo-channel of the channel may have taken a bus since the
    // plan was made (it issues first in a cycle both use): as pick() would
    // then, that class issues nothing now.
    if (m_state.row_bus() > c) p.row = BurstQueue::kNone;
    if (m_state.col_bus() > c) p.col = BurstQueue::kNone;
  } else {
    p = m_sched.pick(q, m_state, m_refresh, c);
  }
  if (row_used) p.row = BurstQueue::kNone;
  if (!m_dual && p.col != BurstQueue::kNone) p.row = BurstQueue::kNone;  // one command bus
  if (row_used && !m_dual) p.col = BurstQueue::kNone;
  // A planned step that issued one class of command leaves the plan of the
  // other class standing (PlanKept) when that one was not due yet.
  PlanKept kept = PlanKept::kNothing;
  std::uint32_t bank = 0;
  if (p.row != BurstQueue::kNone) {
    QueueEntry& e = q[p.row];
    bank = e.bank;
    if (planned && m_keep_plans && p.col == BurstQueue::kNone && m_plan.col_at > c) kept = PlanKept::kColumns;
    // One inlined copy per command, each with its command constant: the
    // one branch on ACT against PRE here replaces those inside (the bank
    // state's dispatch, tFAW, the row open or close), which were
    // mispredicted in turn.
    if (p.row_cmd == Cmd::kAct) issue(Cmd::kAct, &e, e.bank, e.row, e.col, c);
    else issue(Cmd::kPre, &e, e.bank, e.row, e.col, c);
  }
  if (p.col != BurstQueue::kNone) {
    bank = q[p.col].bank;
    if (planned && m_keep_plans && p.row == BurstQueue::kNone && m_plan.row_at > c) kept = PlanKept::kRows;
    issue_column<true>(q, p.col, c);
  }
  m_next = compute_next(c, kept, bank);
  // The reference run: the next cycle whatever the scheduler found (the
  // shortcuts, the only other way out of a step, are off).
  if (m_every_cycle) [[unlikely]]
    m_next = std::min(m_next, c + 1);
}

}  // namespace mxc::hbm
