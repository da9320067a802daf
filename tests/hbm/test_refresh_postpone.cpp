// Refresh postponement (controller.refresh_postpone): a busy controller owes
// refreshes instead of draining its banks for each, then issues the owed
// ones back to back; an idle one catches up at once. Expectations derived
// by hand from the HBM2 preset's timings (tCK 1 ns): tREFI 3900, tRFC 260,
// tRCD 14, tRAS 34, tRP 14, tRTP 5.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "models/hbm/closed_loop.h"
#include "models/hbm/hbm_summary.h"
#include "models/hbm/pattern_source.h"
#include "models/hbm/refresh_policy.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc;
using namespace mxc::hbm;

namespace {

HbmTiming small_timing() {
  HbmTiming t;
  t.REFI = 100;
  t.RFC = 10;
  return t;
}

// Records in `out` the cycle of each REFab pseudo-channel `pc` issues.
void record_refreshes(HbmModel& m, std::uint32_t pc, std::vector<std::uint64_t>& out) {
  m.set_command_observer([&out, pc](std::uint32_t p, const DramCommand& c) {
    if (p == pc && c.cmd == Cmd::kRefAb) out.push_back(c.cycle);
  });
}

/// Pseudo-channel 0's REFab cycles and statistics over 40 000 sequential
/// 256 B reads, 64 in flight (about 43 us: 11 tREFI), every one busy.
std::pair<std::vector<std::uint64_t>, PcStats> stream_refreshes(const MemoryConfig& cfg) {
  HbmModel m("hbm", cfg);
  std::vector<std::uint64_t> refs;
  record_refreshes(m, 0, refs);
  PatternOptions p;
  p.pattern = "seq";
  p.bytes = 256;
  p.requests = 40000;
  PatternSource src(p);
  run_closed_loop(m, src, 64);
  REQUIRE(m.checker()->violation_count() == 0);
  return {refs, m.pc_stats(0)};
}

}  // namespace

TEST_CASE("a busy refresh policy owes refreshes up to its limit, then issues them all") {
  const std::uint32_t banks = 16;
  RefreshPolicy r(RefreshMode::kAllBank, small_timing(), banks, 3);
  std::uint64_t postponed = 0;
  // Three due cycles while busy: owed, not pending, the next due moves on.
  for (std::uint64_t k = 1; k <= 3; ++k) {
    r.update(100 * k, true, postponed);
    CHECK_FALSE(r.pending());
    CHECK(r.owed() == k);
    CHECK(postponed == k);
    CHECK(r.next_due() == 100 * (k + 1));
  }
  // The fourth falls due with three owed: pending, and it stays pending
  // until all four have issued, each 10 cycles (tRFC) after the last.
  r.update(400, true, postponed);
  REQUIRE(r.pending());
  CHECK(postponed == 3);
  CHECK(r.on_issue(Cmd::kRefAb, 405) == (5 + 10) * banks);  // waited 5 cycles, then tRFC
  CHECK(r.next_due() == 500);
  for (std::uint64_t k = 1; k <= 3; ++k) {
    CHECK(r.pending());
    // Back to back: each one's own tRFC only (the wait was the last one's).
    CHECK(r.on_issue(Cmd::kRefAb, 405 + 10 * k) == 10 * banks);
    CHECK(r.owed() == 3 - k);
  }
  CHECK_FALSE(r.pending());
  CHECK(r.refreshes() == 4);
  CHECK(r.next_due() == 500);
}

TEST_CASE("an idle refresh policy catches up on owed refreshes before the next due") {
  RefreshPolicy r(RefreshMode::kAllBank, small_timing(), 16, 7);
  std::uint64_t postponed = 0;
  r.update(100, true, postponed);
  r.update(200, true, postponed);
  REQUIRE(r.owed() == 2);
  r.update(250, true, postponed);  // busy between due cycles: nothing
  CHECK_FALSE(r.pending());
  r.update(251, false, postponed);  // idle: at once
  REQUIRE(r.pending());
  r.on_issue(Cmd::kRefAb, 260);
  CHECK(r.pending());
  r.on_issue(Cmd::kRefAb, 270);
  CHECK_FALSE(r.pending());
  CHECK(r.owed() == 0);
  CHECK(r.next_due() == 300);  // the due cycles did not move
}

TEST_CASE("a refresh due while owed ones are paid counts each bank-cycle once") {
  // Two owed, paid from 295 (idle): REFab at 296 and 306 hold every bank
  // until 316. The one due at 300 is pending from the next step, 307, and
  // issues at 316: refresh held every bank from 295 to 326, 31 cycles.
  const std::uint32_t banks = 16;
  RefreshPolicy r(RefreshMode::kAllBank, small_timing(), banks, 7);
  std::uint64_t postponed = 0;
  r.update(100, true, postponed);
  r.update(200, true, postponed);
  r.update(295, false, postponed);
  REQUIRE(r.pending());
  std::uint64_t held = r.on_issue(Cmd::kRefAb, 296);
  held += r.on_issue(Cmd::kRefAb, 306);
  REQUIRE_FALSE(r.pending());
  r.update(307, false, postponed);
  REQUIRE(r.pending());
  CHECK(r.on_issue(Cmd::kRefAb, 316) == 10 * banks);  // its tRFC only: 307 to 316 was the last one's
  held += 10 * banks;
  CHECK(held == (326 - 295) * banks);
  CHECK(r.next_due() == 400);
}

TEST_CASE("per-bank refresh is never postponed") {
  HbmTiming t = small_timing();
  t.REFIsb = 20;
  RefreshPolicy r(RefreshMode::kPerBank, t, 16, 7);
  std::uint64_t postponed = 0;
  r.update(20, true, postponed);
  CHECK(r.pending());
  CHECK(r.owed() == 0);
  CHECK(postponed == 0);
}

TEST_CASE("a streaming controller refreshes in batches of postponed refreshes") {
  // Sequential reads keep every pseudo-channel busy. With 3 postponed, the
  // 4th due cycle (4 x 3900) starts a batch of 4 REFab, tRFC apart; the next
  // batch starts at the 8th due cycle.
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.controller.refresh_postpone = 3;
  const auto [refs, s] = stream_refreshes(cfg);
  REQUIRE(refs.size() >= 8);
  // Each of the two batches paid 3 postponed refreshes, and every other
  // due cycle passed was postponed too (the controller stays busy).
  CHECK(s.refreshes_postponed == s.last_cycle / 3900 - 2);
  for (std::size_t batch = 0; batch < 2; ++batch) {
    const std::uint64_t due = (batch + 1) * 4 * 3900;
    const std::uint64_t first = refs[4 * batch];
    INFO("batch " << batch);
    // Open rows close first: at most tRAS + tRP after the due cycle.
    CHECK(first >= due);
    CHECK(first <= due + 34 + 14);
    for (std::size_t k = 1; k < 4; ++k) CHECK(refs[4 * batch + k] == first + 260 * k);
  }
  // Without postponement: one REFab per due cycle.
  cfg.controller.refresh_postpone = 0;
  const auto [each_refs, each_stats] = stream_refreshes(cfg);
  CHECK(each_stats.refreshes_postponed == 0);
  REQUIRE(each_refs.size() >= 4);
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(each_refs[k] >= (k + 1) * 3900);
    CHECK(each_refs[k] <= (k + 1) * 3900 + 34 + 14);
  }
}

TEST_CASE("a controller that goes idle issues its owed refresh once its row may close") {
  // One 32 B read arrives at cycle 3900, the first due cycle: busy, the
  // refresh is postponed. ACT 3900, RD at 3900 + tRCD = 3914, and the queue
  // is empty. The owed refresh needs the row closed: PRE(A) at
  // max(ACT + tRAS, RD + tRTP) = 3934, REFab tRP later at 3948. The next due
  // (7800) finds the controller idle: on time.
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.controller.refresh_postpone = 7;
  HbmModel m("hbm", cfg);
  std::vector<std::uint64_t> refs;
  record_refreshes(m, 0, refs);
  const MemResponse r = test::one_request(m, 0, 32, false, 3899 * 1000ULL);
  CHECK(r.complete - r.accept == (1 + 14 + 14 + 2 + 1) * 1000);  // frontend, tRCD, CL, burst, backend
  m.finish(8000 * 1000ULL);
  REQUIRE(m.checker()->violation_count() == 0);
  CHECK(refs == std::vector<std::uint64_t>{3948, 7800});
  CHECK(m.pc_stats(0).refreshes == 2);
  CHECK(m.pc_stats(0).refreshes_postponed == 1);
}

TEST_CASE("refreshes still owed when a run ends are counted: with those issued they are the ones due") {
  // 20 000 sequential 256 B reads keep every pseudo-channel busy for about
  // 20 us: five tREFI (3 900 ns) fall due on each of the 16, and a busy
  // controller owing fewer than 8 postpones each. Issued plus owed is the
  // count due, 16 x floor(time / tREFI); with nothing postponed none is owed.
  for (const std::uint32_t postpone : {7u, 0u}) {
    MemoryConfig cfg = test::preset("hbm2.yaml");
    cfg.controller.refresh_postpone = postpone;
    HbmModel m("hbm", cfg);
    PatternOptions p;
    p.pattern = "seq";
    p.bytes = 256;
    p.requests = 20000;
    PatternSource src(p);
    const LoopResult run = run_closed_loop(m, src, 64);
    const HbmSummary s = summarize(m, run);
    const std::uint64_t due = 16 * (run.sim_time_ps / (cfg.device.t.REFI * cfg.device.t.tCK_ps));
    INFO("postpone " << postpone << ", " << s.refreshes << " issued, " << s.refreshes_owed << " owed");
    REQUIRE(due >= 64);
    if (postpone == 0) {
      CHECK(s.refreshes_owed == 0);
      CHECK(s.refreshes == due);
    } else {
      CHECK(s.refreshes_owed > 0);
      CHECK(s.refreshes_owed <= 16 * postpone);
      CHECK(s.refreshes + s.refreshes_owed == due);
    }
  }
}
