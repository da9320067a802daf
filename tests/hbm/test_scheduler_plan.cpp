// FrFcfsScheduler's plan against pick(): after next_ready() at cycle c
// returns n, planned() at n must choose what a fresh pick() at n chooses,
// over random queues, row states, refresh blocking and starvation. The
// commands chosen are issued, so the states are those a controller meets.
// A plan that keeps one class of command from the plan before (PlanKept)
// must equal the plan made from scratch. And pick() itself, which visits
// banks, against FR-FCFS written out over the queued bursts one by one.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <utility>

#include "models/hbm/scheduler.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc::hbm;

namespace {

/// Sometimes queues a few new bursts arriving within 4 cycles of `now`:
/// few rows per bank, so hits, misses and conflicts all occur.
void maybe_enqueue(std::mt19937_64& rng, BurstQueue& q, const BankState& state, std::uint32_t banks,
                   std::uint64_t now) {
  if (q.size() >= 24 || rng() % 3 != 0) return;
  for (std::uint64_t n = 1 + rng() % 4; n; --n) {
    const auto bank = static_cast<std::uint32_t>(rng() % banks);
    const auto row = static_cast<std::uint32_t>(rng() % 3);
    const bool hit = state.open_row(bank) == static_cast<std::int64_t>(row);
    q.push_back(bank, row, now + rng() % 4, hit);
  }
}

/// Issues what pick chose at `now`, as the controller does, and returns
/// the banks of its row and column commands. The oldest burst counts as
/// bypassed unless `front_held` (refresh holds its bank).
std::pair<std::uint32_t, std::uint32_t> issue(const SchedulePick& p, BurstQueue& q, BankState& state,
                                              std::uint64_t now, bool front_held = false) {
  std::uint32_t row_bank = 0, col_bank = 0;
  if (p.row != BurstQueue::kNone) {
    const QueueEntry& e = q[p.row];
    row_bank = e.bank;
    REQUIRE(state.earliest(p.row_cmd, e.bank) <= now);
    state.issue(p.row_cmd, e.bank, e.row, now);
    if (p.row_cmd == Cmd::kAct) q.row_opened(e.bank, e.row);
    else q.row_closed(e.bank);
  }
  if (p.col != BurstQueue::kNone) {
    const QueueEntry& e = q[p.col];
    col_bank = e.bank;
    const Cmd col = q.write() ? Cmd::kWr : Cmd::kRd;
    REQUIRE(state.earliest(col, e.bank) <= now);
    state.issue(col, e.bank, e.row, now);
    if (p.col != q.front() && q[q.front()].arrival <= now && !front_held) q.bypass_front();
    q.erase_hit(p.col);
  }
  return {row_bank, col_bank};
}

/// Requires the same choice of `got` as `want`; returns its commands.
std::uint64_t require_same_pick(const SchedulePick& got, const SchedulePick& want) {
  REQUIRE(got.col == want.col);
  REQUIRE(got.row == want.row);
  if (want.row != BurstQueue::kNone) REQUIRE(got.row_cmd == want.row_cmd);
  return (want.col != BurstQueue::kNone) + (want.row != BurstQueue::kNone);
}

/// FR-FCFS at `now` written out over the queued bursts in age order, as
/// the scheduler's comment states it: the oldest arrived row hit whose
/// read (write) may issue takes the column bus; the oldest
/// arrived burst that misses, in a bank where no queued burst hits, takes
/// the row bus for its ACT (bank closed) or PRE (another row open) if that
/// may issue; not both to one bank; and once the oldest burst has been
/// bypassed `cap` times, only it is served (its PRE even over others' hits).
/// FR-FCFS over every burst. The oldest burst starves (alone served) once
/// bypassed `cap` times, but not while refresh holds its bank: a pending
/// refresh of it, or `refreshed`, the bank of the last per-bank refresh, up
/// to cycle `refreshed_until`.
SchedulePick reference_pick(const BurstQueue& q, const BankState& state, const RefreshPolicy& refresh,
                            std::uint32_t cap, std::uint64_t now, std::uint32_t refreshed,
                            std::uint64_t refreshed_until) {
  SchedulePick p;
  if (q.empty()) return p;
  const auto hits_in_bank = [&](std::uint32_t bank) {
    for (BurstQueue::Index i = q.front(); i != BurstQueue::kNone; i = q.next(i))
      if (q[i].bank == bank && state.open_row(bank) == static_cast<std::int64_t>(q[i].row)) return true;
    return false;
  };
  const auto command = [&](const QueueEntry& e) {
    const std::int64_t open = state.open_row(e.bank);
    const Cmd col = q.write() ? Cmd::kWr : Cmd::kRd;
    return open == static_cast<std::int64_t>(e.row) ? col : open == BankState::kClosed ? Cmd::kAct : Cmd::kPre;
  };
  const QueueEntry& f = q[q.front()];
  const bool held = refresh.blocks(f.bank) || (f.bank == refreshed && now < refreshed_until);
  if (q.front_bypassed() >= cap && f.arrival <= now && !held) {
    const Cmd cmd = command(f);
    if (!refresh.blocks(f.bank) && state.earliest(cmd, f.bank) <= now) {
      if (is_column(cmd)) p.col = q.front();
      else p.row = q.front(), p.row_cmd = cmd;
    }
    return p;
  }
  for (BurstQueue::Index i = q.front(); i != BurstQueue::kNone; i = q.next(i)) {
    const QueueEntry& e = q[i];
    if (e.arrival > now || refresh.blocks(e.bank)) continue;
    const Cmd cmd = command(e);
    if (state.earliest(cmd, e.bank) > now) continue;
    if (is_column(cmd)) {
      if (p.col == BurstQueue::kNone) p.col = i;
    } else if (p.row == BurstQueue::kNone && !hits_in_bank(e.bank)) {
      p.row = i, p.row_cmd = cmd;
    }
  }
  if (p.col != BurstQueue::kNone && p.row != BurstQueue::kNone && q[p.col].bank == q[p.row].bank)
    p.row = BurstQueue::kNone;
  return p;
}

}  // namespace

TEST_CASE("the scheduler's plan chooses what pick chooses at the planned cycle") {
  const MemoryConfig cfg = test::preset("hbm2.yaml");
  const HbmOrg& org = cfg.device.org;
  std::uint64_t compared = 0, planned_commands = 0, kept_columns = 0, kept_rows = 0;
  REQUIRE(FrFcfsScheduler::rows_and_columns_meet_in_banks(TimingTable(cfg.device.t)));
  for (const RefreshMode mode : {RefreshMode::kNone, RefreshMode::kAllBank, RefreshMode::kPerBank}) {
    for (const std::uint32_t cap : {2u, 16u}) {
      std::mt19937_64 rng(7 + cap);
      BankState state(org, cfg.device.t, true);
      RefreshPolicy refresh(mode, cfg.device.t, org.banks());  // postpones nothing
      std::uint64_t postponed = 0;
      const FrFcfsScheduler sched(cap);
      BurstQueue q(org.banks());
      std::uint64_t now = 0;
      for (int round = 0; round < 20000; ++round) {
        maybe_enqueue(rng, q, state, org.banks(), now);  // a plan made before is then stale
        refresh.update(now, true, postponed);  // per-bank refresh falls due and then blocks its bank for good
        SchedulePlan plan;
        const std::uint64_t next = sched.next_ready(q, state, refresh, now, plan);
        if (next == kNoCycle) {
          now += 1 + rng() % 8;
          continue;
        }
        REQUIRE(next > now);
        const bool was_pending = refresh.pending();
        refresh.update(next, true, postponed);
        const SchedulePick p = sched.pick(q, state, refresh, next);
        if (plan.valid && refresh.pending() == was_pending) {
          const SchedulePick planned = FrFcfsScheduler::planned(plan, q, next);
          INFO("cycle " << next << ", round " << round);
          planned_commands += require_same_pick(planned, p);
          ++compared;
        }
        now = next;
        const auto [row_bank, col_bank] = issue(p, q, state, now);
        // One class of command issued from a plan while the other class was
        // not due: the next plan may keep that class's choice, and must
        // then equal a plan made from scratch.
        const bool one_row = p.row != BurstQueue::kNone && p.col == BurstQueue::kNone && plan.col_at > now;
        const bool one_col = p.col != BurstQueue::kNone && p.row == BurstQueue::kNone && plan.row_at > now;
        if (plan.valid && refresh.pending() == was_pending && (one_row || one_col)) {
          const std::uint32_t bank = one_row ? row_bank : col_bank;
          SchedulePlan kept = plan, fresh;
          const std::uint64_t with_kept =
              sched.next_ready(q, state, refresh, now, kept, one_row ? PlanKept::kColumns : PlanKept::kRows, bank);
          const std::uint64_t from_scratch = sched.next_ready(q, state, refresh, now, fresh);
          INFO("cycle " << now << ", round " << round << (one_row ? ", columns kept" : ", rows kept"));
          REQUIRE(with_kept == from_scratch);
          REQUIRE(kept.valid == fresh.valid);
          REQUIRE(kept.col_at == fresh.col_at);
          REQUIRE(kept.col == fresh.col);
          REQUIRE(kept.col_order == fresh.col_order);
          REQUIRE(kept.row_at == fresh.row_at);
          REQUIRE(kept.row == fresh.row);
          REQUIRE(kept.row_order == fresh.row_order);
          if (fresh.row != BurstQueue::kNone) REQUIRE(kept.row_cmd == fresh.row_cmd);
          ++(one_row ? kept_columns : kept_rows);
        }
      }
    }
  }
  // Both the plain and the planned choice were exercised, with commands,
  // and plans keeping either class.
  CHECK(compared > 10000);
  CHECK(planned_commands > 10000);
  CHECK(kept_columns > 1000);
  CHECK(kept_rows > 1000);
}

TEST_CASE("pick chooses what FR-FCFS over the queued bursts one by one chooses") {
  // pick() visits banks, each offering its oldest hit or, with no hits, its
  // oldest burst, with the common part of the command times found once;
  // the reference walks every burst. Random queues of reads and of
  // writes, row states, refresh blocking (per-bank: a bank's bursts wait)
  // and starvation caps of 1, 2 and 16, at every cycle, issuing what was
  // picked.
  const MemoryConfig cfg = test::preset("hbm2.yaml");
  const HbmOrg& org = cfg.device.org;
  std::uint64_t commands = 0, starving = 0;
  for (const RefreshMode mode : {RefreshMode::kNone, RefreshMode::kPerBank}) {
    for (const std::uint32_t cap : {1u, 2u, 16u}) {
      for (const bool write : {false, true}) {
        std::mt19937_64 rng(11 + cap + write);
        BankState state(org, cfg.device.t, true);
        RefreshPolicy refresh(mode, cfg.device.t, org.banks());
        std::uint64_t postponed = 0;
        const FrFcfsScheduler sched(cap);
        BurstQueue q(org.banks(), write);
        std::uint64_t run_commands = 0;
        std::uint32_t refreshed = 0;
        std::uint64_t refreshed_until = 0;  // the last per-bank refresh's bank is busy until then
        for (std::uint64_t now = 0; now < 20000; ++now) {
          maybe_enqueue(rng, q, state, org.banks(), now);
          refresh.update(now, true, postponed);
          // A pending refresh takes the row bus first when it may, as in
          // the controller (a per-bank one precharges its bank, then
          // refreshes it; its bank's bursts wait until then).
          if (refresh.pending()) {
            Cmd cmd;
            std::uint32_t bank;
            refresh.wanted(state, &cmd, &bank);
            if (state.earliest(cmd, bank) <= now) {
              state.issue(cmd, bank, 0, now);
              if (cmd == Cmd::kPre) q.row_closed(bank);
              if (cmd == Cmd::kRefSb) {
                refresh.on_issue(cmd, now);
                refreshed = bank;
                refreshed_until = now + cfg.device.t.RFCsb;
              }
            }
          }
          const SchedulePick p = sched.pick(q, state, refresh, now);
          const SchedulePick want = reference_pick(q, state, refresh, cap, now, refreshed, refreshed_until);
          INFO("cycle " << now << ", cap " << cap << (write ? ", writes" : ", reads"));
          run_commands += require_same_pick(p, want);
          starving += !q.empty() && q.front_bypassed() >= cap;
          const bool held = !q.empty() && (refresh.blocks(q[q.front()].bank) ||
                                           (q[q.front()].bank == refreshed && now < refreshed_until));
          issue(p, q, state, now, held);
        }
        CHECK(run_commands > 2000);  // the queue kept moving to the end
        commands += run_commands;
      }
    }
  }
  CHECK(commands > 60000);
  CHECK(starving > 1000);
}
