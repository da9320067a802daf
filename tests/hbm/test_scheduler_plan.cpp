// FrFcfsScheduler's plan against pick(): after next_ready() at cycle c
// returns n, planned() at n must choose what a fresh pick() at n chooses,
// over random queues, row states, refresh blocking and starvation. The
// commands chosen are issued, so the states are those a controller meets.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>

#include "models/hbm/scheduler.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc::hbm;

TEST_CASE("the scheduler's plan chooses what pick chooses at the planned cycle") {
  const MemoryConfig cfg = test::preset("hbm2.yaml");
  const HbmOrg& org = cfg.device.org;
  std::uint64_t compared = 0, planned_commands = 0;
  for (const RefreshMode mode : {RefreshMode::kNone, RefreshMode::kAllBank, RefreshMode::kPerBank}) {
    for (const std::uint32_t cap : {2u, 16u}) {
      std::mt19937_64 rng(7 + cap);
      BankState state(org, cfg.device.t, true);
      RefreshPolicy refresh(mode, cfg.device.t, org.banks());
      const FrFcfsScheduler sched(cap);
      BurstQueue q(org.banks());
      std::uint64_t now = 0;
      for (int round = 0; round < 20000; ++round) {
        // Sometimes queue new bursts (a plan made before is then stale):
        // few rows per bank, so hits, misses and conflicts all occur.
        if (q.size() < 24 && rng() % 3 == 0) {
          for (std::uint64_t n = 1 + rng() % 4; n; --n) {
            const auto bank = static_cast<std::uint32_t>(rng() % org.banks());
            const auto row = static_cast<std::uint32_t>(rng() % 3);
            const bool hit = state.open_row(bank) == static_cast<std::int64_t>(row);
            q.push_back(bank, row, now + rng() % 4, hit);
          }
        }
        refresh.update(now);  // per-bank refresh falls due and then blocks its bank for good
        SchedulePlan plan;
        const std::uint64_t next = sched.next_ready(q, state, refresh, now, plan);
        if (next == kNoCycle) {
          now += 1 + rng() % 8;
          continue;
        }
        REQUIRE(next > now);
        const bool was_pending = refresh.pending();
        refresh.update(next);
        const SchedulePick p = sched.pick(q, state, refresh, next);
        if (plan.valid && refresh.pending() == was_pending) {
          const SchedulePick planned = FrFcfsScheduler::planned(plan, q, next);
          INFO("cycle " << next << ", round " << round);
          REQUIRE(planned.col == p.col);
          REQUIRE(planned.row == p.row);
          if (p.row != BurstQueue::kNone) REQUIRE(planned.row_cmd == p.row_cmd);
          ++compared;
          planned_commands += (p.col != BurstQueue::kNone) + (p.row != BurstQueue::kNone);
        }
        // Issue what pick chose, as the controller does.
        now = next;
        if (p.row != BurstQueue::kNone) {
          const QueueEntry& e = q[p.row];
          REQUIRE(state.earliest(p.row_cmd, e.bank) <= now);
          state.issue(p.row_cmd, e.bank, e.row, now);
          if (p.row_cmd == Cmd::kAct) q.row_opened(e.bank, e.row);
          else q.row_closed(e.bank);
        }
        if (p.col != BurstQueue::kNone) {
          const QueueEntry& e = q[p.col];
          REQUIRE(state.earliest(Cmd::kRd, e.bank) <= now);
          state.issue(Cmd::kRd, e.bank, e.row, now);
          if (p.col != q.front() && q[q.front()].arrival <= now) q.bypass_front();
          q.erase_hit(p.col);
        }
      }
    }
  }
  // Both the plain and the planned choice were exercised, with commands.
  CHECK(compared > 10000);
  CHECK(planned_commands > 10000);
}
