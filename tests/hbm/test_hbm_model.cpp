// HbmModel behind the MemoryTarget seam: functional data, splitting,
// backpressure, event-driven sleep, multi-stack interleaving, determinism.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "models/hbm/closed_loop.h"
#include "models/hbm/latency_histogram.h"
#include "models/hbm/pattern_source.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc;
using namespace mxc::hbm;

namespace {
MemRequest req(std::uint64_t id, std::uint64_t addr, std::uint32_t bytes, bool write = false,
               std::vector<std::uint8_t> data = {}) {
  MemRequest r;
  r.id = id;
  r.addr = addr;
  r.bytes = bytes;
  r.write = write;
  r.data = std::move(data);
  return r;
}
void drain(HbmModel& m) {
  for (Time t = m.next_event_time(); t != kNever; t = m.next_event_time()) m.advance_to(t);
}
/// The same bursts, field by field.
void check_bursts(const std::vector<BurstTarget>& got, const std::vector<BurstTarget>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("burst " << i);
    CHECK(got[i].pc == want[i].pc);
    CHECK(got[i].bank == want[i].bank);
    CHECK(got[i].row == want[i].row);
    CHECK(got[i].col == want[i].col);
  }
}
}  // namespace

TEST_CASE("reads return written data for any size and alignment") {
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  std::vector<MemResponse> done;
  m.set_completion([&](const MemResponse& r) { done.push_back(r); });
  std::vector<std::uint8_t> data(1000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + 3);
  MemRequest w = req(1, 4093, 1000, true, data);
  REQUIRE(m.send(w, 0));
  MemRequest r = req(2, 4093 + 10, 77);
  REQUIRE(m.send(r, 0));
  drain(m);
  REQUIRE(done.size() == 2);
  const MemResponse& rr = done[0].id == 2 ? done[0] : done[1];
  CHECK(rr.data == std::vector<std::uint8_t>(data.begin() + 10, data.begin() + 87));
  CHECK(rr.accept == 0);
  CHECK(rr.complete > rr.accept);
  std::vector<std::uint8_t> back(1000);
  m.backdoor_read(4093, back);
  CHECK(back == data);
}

TEST_CASE("partial-strobe writes store exactly the enabled bytes") {
  // Random sizes, offsets across page boundaries and masks (none, all, some
  // bytes, a page's part without any), against the enabled bytes written one
  // by one.
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  m.set_completion([](const MemResponse&) {});
  SparseMemory ref;
  std::mt19937_64 rng(11);
  Time now = 0;
  for (std::uint64_t id = 0; id < 3000; ++id) {
    const std::uint32_t bytes = 1 + static_cast<std::uint32_t>(rng() % (id % 4 == 0 ? 600 : 40));
    const std::uint64_t addr = 4096 * (rng() % 6) + 4096 - 300 + rng() % 400;
    std::vector<std::uint8_t> data(bytes);
    for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    MemRequest w = req(id, addr, bytes, true, data);
    const int kind = static_cast<int>(rng() % 5);  // 0 no mask, 1 all, 2 none, 3 sparse, 4 one range
    if (kind > 0) w.byte_enable.assign(bytes, kind == 1);
    if (kind == 3)
      for (std::size_t i = 0; i < bytes; ++i) w.byte_enable[i] = rng() % 3 == 0;
    if (kind == 4)
      for (std::size_t i = rng() % bytes, e = i + rng() % 64; i < bytes && i < e; ++i) w.byte_enable[i] = true;
    while (!m.send(w, now)) {
      now = m.next_event_time();
      m.advance_to(now);
    }
    for (std::size_t i = 0; i < bytes; ++i)
      if (w.byte_enable.empty() || w.byte_enable[i]) ref.write(addr + i, std::vector<std::uint8_t>{data[i]});
  }
  drain(m);
  std::vector<std::uint8_t> got(6 * 4096 + 4096), want(got.size());
  m.backdoor_read(0, got);
  ref.read(0, std::span<std::uint8_t>(want));
  CHECK(got == want);
}

TEST_CASE("requests split into bursts: 1000 bytes at 4093 cover 33 bursts of 32 B") {
  MemoryConfig cfg = test::preset("hbm2.yaml");
  HbmModel m("hbm", cfg);
  std::vector<BurstTarget> b;
  m.split(4093, 1000, b);
  // From floor(4093 / 32) * 32 = 4064 up to byte 5092: (5093 - 4064) / 32 rounded up.
  CHECK(b.size() == 33);
  m.split(0, 32, b);
  CHECK(b.size() == 1);
  m.split(31, 2, b);
  CHECK(b.size() == 2);
}

TEST_CASE("a full queue refuses requests until it drains") {
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.controller.read_queue = 2;
  cfg.controller.write_high_watermark = 2;
  cfg.controller.write_low_watermark = 1;
  cfg.controller.write_queue = 2;
  HbmModel m("hbm", cfg);
  int done = 0;
  m.set_completion([&](const MemResponse&) { ++done; });
  // 64 B at address 0: two bursts, both in pseudo-channel 0.
  REQUIRE(m.send(req(1, 0, 64), 0));
  const MemRequest more = req(2, 0, 32);
  CHECK_FALSE(m.can_accept(more));
  CHECK_FALSE(m.send(more, 0));
  drain(m);
  CHECK(done == 1);
  CHECK(m.send(more, m.clock().edge(100)));
}

TEST_CASE("an idle model sleeps and replays skipped refreshes when woken") {
  MemoryConfig cfg = test::preset("hbm2.yaml");
  HbmModel m("hbm", cfg);
  CHECK(m.next_event_time() == kNever);
  // Wake after 100 refresh intervals: the controller catches up first.
  const Time t = 100 * 3900 * 1000ULL + 500;
  const MemResponse r = test::one_request(m, 0, 32, false, t);
  CHECK(m.next_event_time() == kNever);
  CHECK(m.pc_stats(0).refreshes == 100);
  CHECK(m.total_stats().steps < 16 * 200);  // O(refreshes), not O(cycles)
  // The 100th REFab falls due at cycle 390000, the edge just before the
  // request: its ACT waits tRFC, then tRCD + CL + burst + backend.
  CHECK(r.complete - r.accept == (260 + 14 + 14 + 2 + 1) * 1000 - 500);
  m.finish(t + 3900 * 1000ULL * 10);
  // The 110th refresh falls due at cycle 429 000, the finish cycle (even:
  // pseudo-channel 4 of channel 2 takes the shared row bus first); 5's
  // waits a cycle behind it, past the finish.
  CHECK(m.pc_stats(4).refreshes == 110);
  CHECK(m.pc_stats(5).refreshes == 109);
  // With a command bus each, both refresh in that cycle.
  cfg.controller.shared_command_bus = false;
  HbmModel own("hbm", cfg);
  test::one_request(own, 0, 32, false, t);
  own.finish(t + 3900 * 1000ULL * 10);
  CHECK(own.pc_stats(5).refreshes == 110);
}

TEST_CASE("stacks interleave in blocks of stack_interleave_bytes") {
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.stacks = 4;
  cfg.stack_interleave_bytes = 4096;
  HbmModel m("hbm", cfg);
  CHECK(m.num_pcs() == 64);
  std::vector<BurstTarget> b;
  for (std::uint32_t s = 0; s < 4; ++s) {
    m.split(s * 4096ULL, 32, b);
    CHECK(b[0].pc / 16 == s);
  }
  m.split(4 * 4096ULL, 32, b);
  CHECK(b[0].pc / 16 == 0);
  PatternOptions p;
  p.pattern = "seq";
  p.bytes = 256;
  p.requests = 20000;
  PatternSource src(p);
  const LoopResult r = run_closed_loop(m, src, 256);
  const double gbps = static_cast<double>(m.bytes_read()) / (r.sim_time_ps / 1000.0);
  CHECK(gbps > 0.9 * 4 * 256);
  CHECK(gbps <= 4 * 256);
}

TEST_CASE("a request is split into its bursts, each decoded by the address mapping") {
  // Against AddressMapper::decode of every burst address in turn (one stack: the interleave
  // blocks are local as they are; four stacks: block k goes to stack k % 4 at local block k / 4).
  for (const std::uint32_t stacks : {1u, 4u}) {
    INFO(stacks << " stacks");
    MemoryConfig cfg = test::preset("hbm2.yaml");
    cfg.stacks = stacks;
    cfg.stack_interleave_bytes = 1024;
    const HbmModel m("hbm", cfg);
    const HbmOrg& o = cfg.device.org;
    const AddressMapper mapper(o, cfg.controller.address_mapping, cfg.controller.xor_bank_hash);
    const std::uint64_t bb = o.burst_bytes(), il = cfg.stack_interleave_bytes;
    std::mt19937_64 rng(7);
    std::vector<BurstTarget> got;
    for (int k = 0; k < 2000; ++k) {
      const std::uint64_t addr = rng() % (std::uint64_t{1} << 30);
      const auto bytes = static_cast<std::uint32_t>(1 + rng() % (k % 4 == 0 ? 5000 : 100));
      m.split(addr, bytes, got);
      std::vector<BurstTarget> want;
      for (std::uint64_t a = addr / bb * bb; a < addr + bytes; a += bb) {
        const std::uint64_t block = a / il;
        const auto stack = static_cast<std::uint32_t>(block % stacks);
        const BurstAddr d = mapper.decode(block / stacks * il + a % il);
        want.push_back({stack * o.pcs() + d.channel * o.pseudo_channels + d.pc,
                        d.bank_group * o.banks_per_group + d.bank, d.row, d.col});
      }
      INFO("request 0x" << std::hex << addr << std::dec << ", " << bytes << " bytes");
      check_bursts(got, want);
    }
  }
}

TEST_CASE("a stride stream keeps every request in its footprint and starts again from its base") {
  // The starts of the requests, by hand: 0, 96, 192, ... while start + 64 <= 1000.
  const auto starts = [](std::uint64_t stride, std::uint32_t bytes, std::uint64_t footprint, std::uint64_t n) {
    PatternOptions p;
    p.pattern = "stride";
    p.stride = stride;
    p.bytes = bytes;
    p.footprint = footprint;
    p.base = 1 << 20;
    p.requests = n;
    PatternSource src(p);
    std::vector<std::uint64_t> got;
    for (SourceItem it; src.next(it) == RequestSource::Next::kReady;) got.push_back(it.addr - p.base);
    return got;
  };
  // 960 B of whole 64 B requests: starts up to 896 fit, 960 would not (it had ended past the footprint).
  CHECK(starts(96, 64, 1000, 12) ==
        std::vector<std::uint64_t>{0, 96, 192, 288, 384, 480, 576, 672, 768, 864, 0, 96});
  // A stride of whole requests laps the footprint as the remainder did: 0, 256, 512, 768, 0.
  CHECK(starts(256, 64, 1024, 5) == std::vector<std::uint64_t>{0, 256, 512, 768, 0});
  CHECK(starts(32, 64, 128, 4) == std::vector<std::uint64_t>{0, 32, 64, 0});  // overlapping requests
  CHECK(starts(960, 64, 1024, 3) == std::vector<std::uint64_t>{0, 960, 0});
  // A second request that fits nowhere: refused by name rather than put at 0 for ever.
  CHECK_THROWS_WITH(starts(961, 64, 1024, 3), "--stride 961: the second request, at 961, would not fit in "
                                              "--footprint 1024 with --size 64 (whole requests end by byte 1024)");
  // The footprint as given, and where its whole requests end: 1000 B hold 15 of 64 B, to 960.
  CHECK_THROWS_WITH(starts(897, 64, 1000, 3), "--stride 897: the second request, at 897, would not fit in "
                                              "--footprint 1000 with --size 64 (whole requests end by byte 960)");
}

TEST_CASE("same seed and config give identical results") {
  auto once = [](std::uint64_t seed) {
    HbmModel m("hbm", test::preset("hbm2.yaml"));
    PatternOptions p;
    p.pattern = "mix";
    p.write_ratio = 0.3;
    p.requests = 5000;
    p.seed = seed;
    PatternSource src(p);
    const LoopResult r = run_closed_loop(m, src, 32);
    const PcStats s = m.total_stats();
    return std::vector<std::uint64_t>{r.sim_time_ps, m.reads(), m.writes(), s.row_hits, s.row_conflicts, s.acts,
                                      s.steps, static_cast<std::uint64_t>(m.latency().percentile_ns(99))};
  };
  CHECK(once(7) == once(7));
  CHECK(once(7) != once(8));
}

TEST_CASE("a pattern's stream depends on its seed exactly where it draws random numbers") {
  // The addresses and directions of the first 200 requests.
  auto stream = [](PatternOptions p, std::uint64_t seed) {
    p.requests = 200;
    p.seed = seed;
    PatternSource src(p);
    std::vector<std::pair<std::uint64_t, bool>> out;
    SourceItem item;
    while (src.next(item) == RequestSource::Next::kReady) {
      out.emplace_back(item.addr, item.write);
      src.on_complete(MemResponse{});  // a chase's next load waits for this one
    }
    CHECK(out.size() == 200);
    return out;
  };
  struct Case {
    const char* pattern;
    double write_ratio;
    bool random;  // by hand: seq and stride draw only to pick writes
  };
  for (const Case& c : {Case{"seq", 0.0, false}, Case{"seq", 0.3, true}, Case{"stride", 0.0, false},
                        Case{"stride", 0.3, true}, Case{"random", 0.0, true}, Case{"mix", 0.5, true},
                        Case{"chase", 0.0, true}}) {
    INFO(c.pattern << " write ratio " << c.write_ratio);
    PatternOptions p;
    p.pattern = c.pattern;
    p.write_ratio = c.write_ratio;
    CHECK(draws_random(p) == c.random);
    CHECK((stream(p, 1) != stream(p, 2)) == c.random);
  }
}

TEST_CASE("pointer chase keeps one load in flight") {
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  PatternOptions p;
  p.pattern = "chase";
  p.requests = 200;
  PatternSource src(p);
  const LoopResult r = run_closed_loop(m, src, 64);
  // Serial loads: total time is at least 200 x the row-hit latency (18 ns).
  CHECK(r.sim_time_ps >= 200 * 18 * 1000ULL);
  CHECK(m.latency().count() == 200);
}

TEST_CASE("invalid requests are rejected with a message") {
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  CHECK_THROWS_WITH(m.send(req(9, 0, 0), 0), Catch::Contains("0 bytes"));
  CHECK_THROWS_WITH(m.send(req(9, 0, 8, true, {1}), 0),
                    Catch::Contains("carries 1 bytes"));
}

TEST_CASE("requests at the top of the address space split like any other, past it they are errors") {
  for (const std::uint32_t stacks : {1u, 2u, 3u}) {
    INFO(stacks << " stacks");
    MemoryConfig cfg = test::preset("hbm2.yaml");
    cfg.stacks = stacks;
    cfg.stack_interleave_bytes = 1024;
    HbmModel m("hbm", cfg);
    // A request ending exactly at 2^64 covers the bursts its 32 B pieces
    // cover one at a time.
    const std::uint64_t top = ~std::uint64_t{0};
    for (const std::uint32_t bytes : {32u, 64u, 100u, 3000u}) {
      const std::uint64_t addr = top - bytes + 1;
      std::vector<BurstTarget> whole, piece, pieces;
      m.split(addr, bytes, whole);
      for (std::uint64_t a = addr / 32 * 32;; a += 32) {
        m.split(a, 32, piece);
        pieces.insert(pieces.end(), piece.begin(), piece.end());
        if (a == top - 31) break;
      }
      INFO(bytes << " bytes");
      check_bursts(whole, pieces);
    }
    REQUIRE(m.send(req(1, top - 63, 64), 0));
    drain(m);
    CHECK(m.requests_done() == 1);
    CHECK(m.requests_beyond_capacity() == 1);
    // One byte more passes the end: an error, whether offered or asked about.
    CHECK_THROWS_WITH(m.send(req(2, top - 62, 64), 0), Catch::Contains("past the end of the 64-bit address space"));
    CHECK_THROWS_WITH(m.can_accept(req(3, top, 2)), Catch::Contains("past the end of the 64-bit address space"));
  }
}

TEST_CASE("a request larger than all the queues together is an error before it is split") {
  HbmModel m("hbm", test::preset("hbm2.yaml"));
  // 16 pseudo-channels x 32 bursts of 32 B hold 16 KiB: 4 GiB would need
  // 2^27 bursts (and gigabytes to list them).
  CHECK_THROWS_WITH(m.can_accept(req(1, 0, 0xffffffffu)),
                    Catch::Contains("needs at least 134217728 bursts") && Catch::Contains("hold 512"));
  CHECK_THROWS_WITH(m.check_request(req(1, 0, 16385)), Catch::Contains("needs at least 513 bursts"));
  CHECK_NOTHROW(m.check_request(req(1, 0, 16384)));
}

TEST_CASE("queue occupancy counts each burst from when it was queued to its column command") {
  // Isolated 32 B reads far apart, each queued at a known cycle: a burst
  // leaves the queue with its RD, so the read-queue integral is the sum of
  // (RD cycle - queued cycle), read from the commands.
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.controller.refresh = RefreshMode::kNone;
  HbmModel m("hbm", cfg);
  std::vector<std::uint64_t> rd_cycles;
  m.set_command_observer([&](std::uint32_t, const DramCommand& c) {
    if (is_column(c.cmd)) rd_cycles.push_back(c.cycle);
  });
  const std::vector<std::uint64_t> queued = {0, 1000, 5000};
  std::uint64_t expected = 0;
  for (std::size_t i = 0; i < queued.size(); ++i) {
    const Time at = m.clock().edge(queued[i]);
    m.advance_to(at);
    REQUIRE(m.send(req(i, 0x40 * i, 32), at));
    drain(m);
    REQUIRE(rd_cycles.size() == i + 1);
    expected += rd_cycles.back() - queued[i];
  }
  CHECK(m.total_stats().read_queue_integral == expected);
  CHECK(m.total_stats().write_queue_integral == 0);
}

TEST_CASE("latency percentiles are latencies that occurred") {
  LatencyHistogram h;
  CHECK(h.percentile_ns(50) == 0.0);
  // Whole nanoseconds (a 1 ns clock): exact.
  for (const Time ns : {32, 32, 32, 40}) h.add(ns * 1000);
  CHECK(h.percentile_ns(50) == 32.0);
  CHECK(h.percentile_ns(75) == 32.0);
  CHECK(h.percentile_ns(99) == 40.0);
  CHECK(h.percentile_ns(99) <= h.max_ns());
  // Within one bin: the bin's largest, less than 1 ns above the true value.
  LatencyHistogram f;
  for (const Time ps : {31250, 31875, 31875, 35000}) f.add(ps);
  CHECK(f.percentile_ns(25) == 31.875);  // true 31.25
  CHECK(f.percentile_ns(50) == 31.875);
  CHECK(f.percentile_ns(100) == 35.0);
}

TEST_CASE("latency percentiles stay true beyond 16 us") {
  // The same latencies 1000 times longer (a 1 MHz clock): the same ranks.
  LatencyHistogram h;
  for (const Time ns : {52, 52, 52, 118, 204}) h.add(ns * 1000 * 1000);
  CHECK(h.percentile_ns(50) == 52'000.0);
  CHECK(h.percentile_ns(80) == 118'000.0);
  CHECK(h.percentile_ns(99) == 204'000.0);
  // Against the sorted latencies (nearest rank), from 1 ns to 50 ms: each
  // percentile is a latency that occurred, at or above the true one and
  // above it by less than its bin (1 ns below 16.384 us, 1/1024 beyond).
  std::mt19937_64 rng(11);
  std::vector<Time> all;
  LatencyHistogram g;
  for (int i = 0; i < 20'000; ++i) {
    std::uniform_real_distribution<double> log_ps(std::log(1e3), std::log(5e10));  // 1 ns to 50 ms
    const Time ps = static_cast<Time>(std::exp(log_ps(rng)));
    all.push_back(ps);
    g.add(ps);
  }
  std::sort(all.begin(), all.end());
  for (const double p : {1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    INFO("p" << p);
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(all.size())));
    const Time truth = all[rank - 1];
    const auto got = static_cast<Time>(std::llround(g.percentile_ns(p) * 1000.0));  // ns as a double: round to ps
    CHECK(std::binary_search(all.begin(), all.end(), got));
    CHECK(got >= truth);
    const double bin = std::max(1000.0, static_cast<double>(truth) / 1024.0);
    CHECK(static_cast<double>(got) < static_cast<double>(truth) + bin);
  }
}

TEST_CASE("the data bus is idle because of refresh only while a burst waits for it") {
  // Two reads of one bank: the second sent `gap` cycles after the first.
  // Returns pseudo-channel 0's statistics and the cycle of its first REFab.
  const auto run = [](std::uint64_t gap) {
    MemoryConfig cfg = test::preset("hbm2.yaml");
    cfg.controller.refresh_postpone = 0;  // each REFab at its due cycle
    HbmModel m("hbm", cfg);
    std::uint64_t ref = 0;
    m.set_command_observer([&](std::uint32_t pc, const DramCommand& c) {
      if (pc == 0 && c.cmd == Cmd::kRefAb && ref == 0) ref = c.cycle;
    });
    REQUIRE(m.send(req(1, 0, 32), 0));
    const Time second = m.clock().edge(gap);
    m.advance_to(second);
    REQUIRE(m.send(req(2, 0, 32), second));
    drain(m);
    m.finish(m.clock().edge(gap + 10'000));
    REQUIRE(m.checker()->violation_count() == 0);
    return std::pair{m.pc_stats(0), ref};
  };
  // Sent at 5000, after the refresh due at tREFI = 3900 ended (tRFC 260):
  // the bus idled with nothing waiting, none of it for refresh.
  const auto [late, ref] = run(5000);
  REQUIRE(ref >= 3900);
  REQUIRE(ref + 260 < 5000);
  CHECK(late.refresh_idle_cycles == 0);
  // Sent 20 cycles into that refresh: it waits from its arrival (one
  // frontend cycle later) to the refresh's end, then opens its row.
  const auto [during, ref2] = run(ref + 20);
  CHECK(ref2 == ref);
  CHECK(during.refresh_idle_cycles == ref + 260 - (ref + 21));
  // Each read waited tRCD = 14 for its activate (the refresh closed the row).
  CHECK(during.miss_idle_cycles == 2 * 14);
  CHECK(late.miss_idle_cycles == 2 * 14);
}

TEST_CASE("a request larger than a queue can ever hold is an error, not a hang") {
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.controller.read_queue = 1;
  HbmModel m("hbm", cfg);
  // 64 B at 0: two bursts in pseudo-channel 0, whose read queue holds one.
  CHECK_THROWS_WITH(m.send(req(1, 0, 64), 0), Catch::Contains("needs 2 bursts in pseudo-channel 0"));
  CHECK(m.send(req(2, 0, 32), 0));
}

TEST_CASE("requests that reach past the capacity are counted and alias lower addresses") {
  for (const std::uint32_t stacks : {1u, 2u}) {
    MemoryConfig cfg = test::preset("hbm2.yaml");
    cfg.stacks = stacks;
    HbmModel m("hbm", cfg);
    // HBM2 preset: 16 pseudo-channels x 16 banks x 16384 rows x 128 columns x 32 B = 4 GiB a stack.
    const std::uint64_t cap = std::uint64_t{4} << 30 << (stacks - 1);
    REQUIRE(m.capacity_bytes() == cap);
    // The bits above the capacity are ignored: the same bursts as the address below.
    std::vector<BurstTarget> low, high;
    for (const std::uint64_t addr : {std::uint64_t{0x1240}, cap - 4096, std::uint64_t{123456789}}) {
      m.split(addr, 256, low);
      m.split(addr + 3 * cap, 256, high);
      check_bursts(high, low);
    }
    // Ends exactly at the capacity: inside. Straddles it, starts at it, far
    // past it: three beyond.
    std::uint64_t id = 0;
    for (const auto& [addr, bytes] : std::vector<std::pair<std::uint64_t, std::uint32_t>>{
             {cap - 64, 64}, {0, 64}, {cap - 32, 64}, {cap, 32}, {5 * cap + 64, 256}}) {
      REQUIRE(m.send(req(id++, addr, bytes), 0));
      drain(m);
    }
    CHECK(m.requests_beyond_capacity() == 3);
  }
}
