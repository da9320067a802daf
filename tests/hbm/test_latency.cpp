// Latencies of isolated requests against hand-derived sums of JEDEC timings.
// HBM2 preset: tCK 1 ns, tRCD 14, CL 14, CWL 5, tRP 14, burst 2 cycles;
// fixed controller overhead = frontend 1 + backend 1 cycle.
#include <catch2/catch.hpp>

#include "tests/hbm/hbm_test_util.h"

using namespace mxc;
using namespace mxc::hbm;

namespace {
constexpr Time kNs = 1000;
}

TEST_CASE("idle read latency is frontend + tRCD + CL + burst + backend") {
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  const MemResponse r = test::one_request(m, 0, 32, false, 0);
  // Accepted at cycle 0, schedulable at 1: ACT@1, RD@15, data 29..31, back at 32.
  CHECK(r.accept == 0);
  CHECK(r.complete == (1 + 14 + 14 + 2 + 1) * kNs);
  CHECK(m.total_stats().row_misses == 1);
}

TEST_CASE("a frontend delay longer than the livelock backstop's 64 refresh rounds only delays the request") {
  // The backstop stops a pseudo-channel whose bursts wait 64 x tREFI = 249 600 cycles without a column
  // command; it counts from when the scheduler can see them, not while the frontend holds them.
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.controller.frontend_cycles = 300'000;
  HbmModel m("hbm", cfg);
  const MemResponse r = test::one_request(m, 0, 32, false, 0);
  // Refresh falls due during the wait and has closed no row of this idle bank: a row miss as at once.
  CHECK(r.complete >= (300'000 + 14 + 14 + 2 + 1) * kNs);
  CHECK(r.complete < (300'000 + 14 + 14 + 2 + 1 + 300) * kNs);  // a refresh's tRFC at most on the way
}

TEST_CASE("a request offered between clock edges waits for the next edge") {
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  const MemResponse r = test::one_request(m, 0, 32, false, 400);
  CHECK(r.complete == (1 + 1 + 14 + 14 + 2 + 1) * kNs);
}

TEST_CASE("with no frontend delay a request taken at an edge is seen from the next cycle") {
  // The model has run the edge's cycle before it takes the request (send
  // runs the controllers up to it first), so the request's ACT comes in the
  // next cycle, whether the controller slept through that cycle or stepped
  // it (stepping every cycle): ACT@11, RD@25, data 39..41, back at 42.
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.controller.frontend_cycles = 0;
  cfg.controller.refresh = RefreshMode::kNone;
  for (const bool every_cycle : {false, true}) {
    INFO((every_cycle ? "stepping every cycle" : "event-driven"));
    cfg.every_cycle = every_cycle;
    HbmModel m("hbm", cfg);
    std::vector<DramCommand> acts;
    m.set_command_observer([&](std::uint32_t, const DramCommand& c) {
      if (c.cmd == Cmd::kAct) acts.push_back(c);
    });
    m.advance_to(10 * kNs);
    const MemResponse r = test::one_request(m, 0, 32, false, 10 * kNs);
    REQUIRE(acts.size() == 1);
    CHECK(acts.front().cycle == 11);
    CHECK(r.complete == (11 + 14 + 14 + 2 + 1) * kNs);
  }
}

TEST_CASE("row hit skips the activate, row conflict adds precharge and activate") {
  MemoryConfig cfg = test::preset("hbm2.yaml");
  HbmModel m("hbm", cfg);
  AddressMapper map(cfg.device.org, cfg.controller.address_mapping, false);
  const std::uint64_t a = map.encode({0, 0, 0, 0, 7, 0});
  const std::uint64_t hit = map.encode({0, 0, 0, 0, 7, 5});
  const std::uint64_t conflict = map.encode({0, 0, 0, 0, 9, 0});
  REQUIRE(map.decode(hit).col == 5);

  test::one_request(m, a, 32, false, 0);
  const MemResponse h = test::one_request(m, hit, 32, false, 100 * kNs);
  CHECK(h.complete - h.accept == (1 + 14 + 2 + 1) * kNs);  // RD at once
  const MemResponse c = test::one_request(m, conflict, 32, false, 200 * kNs);
  CHECK(c.complete - c.accept == (1 + 14 + 14 + 14 + 2 + 1) * kNs);  // PRE, tRP, ACT, tRCD, RD
  const PcStats s = m.total_stats();
  CHECK(s.row_misses == 1);
  CHECK(s.row_hits == 1);
  CHECK(s.row_conflicts == 1);
}

TEST_CASE("idle write latency is frontend + tRCDWR + CWL + burst + backend") {
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  const MemResponse r = test::one_request(m, 0, 32, true, 0);
  CHECK(r.complete == (1 + 12 + 5 + 2 + 1) * kNs);
}

TEST_CASE("closed page precharges with the column command, so the next access activates again") {
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.controller.page_policy = PagePolicy::kClosed;
  HbmModel m("hbm", cfg);
  test::one_request(m, 0, 32, false, 0);
  const MemResponse again = test::one_request(m, 32, 32, false, 100 * kNs);  // same row, next column
  CHECK(again.complete - again.accept == (1 + 14 + 14 + 2 + 1) * kNs);
  CHECK(m.total_stats().row_misses == 2);
  CHECK(m.total_stats().pres == 0);  // auto-precharge, no PRE command
}

TEST_CASE("a 64-byte read spanning two bursts of one row completes after the second burst") {
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  // Both bursts hit bank 0 (co:1 is the lowest mapped bit): RD@15 and RD@19
  // (tCCD_L = 4 in one bank group), last data ends at 19 + 14 + 2.
  const MemResponse r = test::one_request(m, 0, 64, false, 0);
  CHECK(r.complete == (19 + 14 + 2 + 1) * kNs);
}

TEST_CASE("an ACT holds the row command bus for ACT_cycles, so a precharge behind it waits") {
  // Bank 0 has row 7 open. At 200 ns a read to closed bank 1 and then a
  // read to row 9 of bank 0 arrive together (schedulable at cycle 201): the
  // older one's ACT@201 holds the row bus for ACT_cycles, the PRE to bank 0
  // follows, then tRP 14, ACT, tRCD 14, RD, CL 14, burst 2, backend 1.
  for (const std::uint32_t act_cycles : {1u, 2u, 3u}) {
    MemoryConfig cfg = test::preset("hbm2.yaml");
    cfg.device.t.ACT_cycles = act_cycles;
    HbmModel m("hbm", cfg);
    AddressMapper map(cfg.device.org, cfg.controller.address_mapping, false);
    test::one_request(m, map.encode({0, 0, 0, 0, 7, 0}), 32, false, 0);
    std::vector<MemResponse> done;
    m.set_completion([&](const MemResponse& r) { done.push_back(r); });
    MemRequest closed, conflict;
    closed.id = 1, closed.addr = map.encode({0, 0, 0, 1, 3, 0}), closed.bytes = 32;
    conflict.id = 2, conflict.addr = map.encode({0, 0, 0, 0, 9, 0}), conflict.bytes = 32;
    closed.issue = conflict.issue = 200 * kNs;
    REQUIRE(m.send(closed, 200 * kNs));
    REQUIRE(m.send(conflict, 200 * kNs));
    while (done.size() < 2) m.advance_to(m.next_event_time());
    REQUIRE(done[0].id == 1);
    CHECK(done[0].complete == (201 + 14 + 14 + 2 + 1) * kNs);  // ACT@201, RD@215
    const std::uint64_t pre = 201 + act_cycles;
    CHECK(done[1].complete == (pre + 14 + 14 + 14 + 2 + 1) * kNs);
  }
}

namespace {
// Reads sent together at `at` ns, completed in any order; returns their
// latencies (complete - accept, ns) by request id.
std::vector<Time> together(HbmModel& m, const std::vector<std::uint64_t>& addrs, Time at) {
  std::vector<Time> lat(addrs.size(), 0);
  std::size_t done = 0;
  m.set_completion([&](const MemResponse& r) {
    lat[r.id] = (r.complete - r.accept) / kNs;
    ++done;
  });
  for (std::size_t i = 0; i < addrs.size(); ++i) {
    MemRequest q;
    q.id = i, q.addr = addrs[i], q.bytes = 32, q.issue = at * kNs;
    REQUIRE(m.send(q, at * kNs));
  }
  while (done < addrs.size()) m.advance_to(m.next_event_time());
  return lat;
}
}  // namespace

TEST_CASE("the pseudo-channels of a channel share its row and column command buses") {
  MemoryConfig cfg = test::preset("hbm2.yaml");
  REQUIRE(cfg.controller.shared_command_bus);
  AddressMapper map(cfg.device.org, cfg.controller.address_mapping, false);
  // Closed banks in pseudo-channels 0 and 1 of channel 0, and in channel 1.
  const std::uint64_t pc0 = map.encode({0, 0, 0, 0, 7, 0}), pc1 = map.encode({0, 1, 0, 0, 7, 0});
  const std::uint64_t other = map.encode({1, 0, 0, 0, 7, 0});
  SECTION("an ACT holds the channel's row bus: the other pseudo-channel's ACT waits ACT_cycles") {
    // Sent at cycle 0, schedulable at 1 (odd: pseudo-channel 1 takes the
    // buses first). Its ACT@1 holds the row bus to 2, so pseudo-channel 0's
    // ACT goes at 3, its RD 14 later at 17; pseudo-channel 1 reads at 15.
    // Channel 1 has buses of its own: as an idle read.
    HbmModel m("hbm", cfg);
    const std::vector<Time> lat = together(m, {pc0, pc1, other}, 0);
    CHECK(lat[1] == 1 + 14 + 14 + 2 + 1);
    CHECK(lat[0] == 3 + 14 + 14 + 2 + 1);
    CHECK(lat[2] == 1 + 14 + 14 + 2 + 1);
  }
  SECTION("in an even cycle pseudo-channel 0 goes first") {
    HbmModel m("hbm", cfg);
    const std::vector<Time> lat = together(m, {pc0, pc1}, 1);  // schedulable at cycle 2
    CHECK(lat[0] == 1 + 14 + 14 + 2 + 1);
    CHECK(lat[1] == 1 + 2 + 14 + 14 + 2 + 1);
  }
  SECTION("row hits in both pseudo-channels: one column command per cycle") {
    // Open both rows first; then two row hits schedulable at cycle 201
    // (odd): pseudo-channel 1's RD@201, then 0's RD@202.
    HbmModel m("hbm", cfg);
    together(m, {pc0, pc1}, 0);
    const std::vector<Time> lat = together(m, {pc0 + 32, pc1 + 32}, 200);
    CHECK(lat[1] == 1 + 14 + 2 + 1);
    CHECK(lat[0] == 1 + 1 + 14 + 2 + 1);
  }
  SECTION("with shared_command_bus false each pseudo-channel has its own buses") {
    cfg.controller.shared_command_bus = false;
    HbmModel m("hbm", cfg);
    const std::vector<Time> lat = together(m, {pc0, pc1}, 0);
    CHECK(lat[0] == 1 + 14 + 14 + 2 + 1);
    CHECK(lat[1] == 1 + 14 + 14 + 2 + 1);
  }
}
