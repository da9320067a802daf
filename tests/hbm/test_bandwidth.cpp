// Throughput against hand-derived ceilings (HBM2 preset, one stack):
//   data bus: 16 pseudo-channels x 64 bit x 2 Gb/s / 8 = 256 GB/s;
//   activates with tFAW = 30 (DRAMsim3's HBM2 value, > 4 x tRRD_S so the
//   window binds): 16 PCs x 4 ACT x 32 B / 30 ns = 68.27 GB/s;
//   all-bank refresh removes at least tRFC / tREFI = 260 / 3900 = 6.67 %.
// Every run has the independent timing checker on.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "models/hbm/closed_loop.h"
#include "models/hbm/hbm_summary.h"
#include "models/hbm/pattern_source.h"
#include "models/hbm/trace_source.h"
#include "tests/hbm/hbm_test_util.h"
#include "tests/temp_dir.h"

using namespace mxc;
using namespace mxc::hbm;

namespace {

struct Run {
  double gbps;
  double ns;
  PcStats stats;
  std::uint64_t bytes;  // read and written
  HbmSummary summary;
};

Run stream(MemoryConfig cfg, const std::string& pattern, std::uint32_t bytes, std::uint64_t n, std::uint32_t window,
           double write_ratio = 0, std::uint64_t stride = 4096) {
  HbmModel m("hbm", cfg);
  PatternOptions p;
  p.pattern = pattern;
  p.bytes = bytes;
  p.requests = n;
  p.write_ratio = write_ratio;
  p.stride = stride;
  PatternSource src(p);
  const LoopResult r = run_closed_loop(m, src, window);
  REQUIRE(m.requests_done() == n);
  REQUIRE(m.checker()->violation_count() == 0);
  const double ns = static_cast<double>(r.sim_time_ps) / 1000.0;
  const std::uint64_t moved = m.bytes_read() + m.bytes_written();
  return {static_cast<double>(moved) / ns, ns, m.total_stats(), moved, summarize(m, r)};
}

}  // namespace

TEST_CASE("sequential reads without refresh stream at the data-bus peak") {
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.controller.refresh = RefreshMode::kNone;
  const Run r = stream(cfg, "seq", 256, 20000, 64);
  CHECK(r.gbps <= 256.0);
  CHECK(r.gbps >= 0.98 * 256.0);
  CHECK(r.stats.row_hits > 0.95 * (r.stats.row_hits + r.stats.row_misses + r.stats.row_conflicts));
}

TEST_CASE("random reads reach the tFAW activate ceiling") {
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.device.t.FAW = 30;
  cfg.controller.refresh = RefreshMode::kNone;
  cfg.controller.page_policy = PagePolicy::kClosed;
  const Run r = stream(cfg, "random", 32, 20000, 1024);
  const double ceiling = 16 * 4 * 32 / 30.0;
  CHECK(r.gbps <= ceiling * 1.001);
  CHECK(r.gbps >= 0.90 * ceiling);
  // Every random 32 B read needs its own activate.
  CHECK(r.stats.acts >= 0.99 * 20000);
}

TEST_CASE("random reads on 128-bit channels reach the tFAW ceiling of the reference's formula") {
  // hbm_bench's device where tFAW binds: 8 channels of 128 bits without
  // pseudo-channels, DRAMsim3's HBM2 timings (tFAW 30 tCK).
  MemoryConfig cfg = load_memory_config(std::string(MXCOSIM_SOURCE_DIR) + "/bench/hbm/hbm2_x128_tfaw.yaml");
  cfg.check_timing = true;
  REQUIRE(cfg.device.org.pcs() == 8);
  REQUIRE(cfg.device.org.burst_bytes() == 64);
  cfg.controller.refresh = RefreshMode::kNone;
  cfg.controller.page_policy = PagePolicy::kClosed;
  const Run r = stream(cfg, "random", 64, 20000, 1024);
  const double ceiling = 8 * 4 * 64 / 30.0;  // channels x 4 x request bytes / tFAW
  CHECK(r.gbps <= ceiling * 1.001);
  CHECK(r.gbps >= 0.90 * ceiling);
  CHECK(r.stats.acts >= 0.99 * 20000);
}

TEST_CASE("all-bank refresh takes its tRFC / tREFI share, per-bank refresh less") {
  MemoryConfig none = test::preset("hbm2.yaml");
  none.controller.refresh = RefreshMode::kNone;
  MemoryConfig all = test::preset("hbm2.yaml");
  all.controller.refresh_postpone = 0;  // each at its due cycle (test_refresh_postpone.cpp: postponed)
  MemoryConfig per = test::preset("hbm2.yaml");
  per.controller.refresh = RefreshMode::kPerBank;
  const Run r0 = stream(none, "seq", 256, 40000, 64);
  const Run ra = stream(all, "seq", 256, 40000, 64);
  const Run rp = stream(per, "seq", 256, 40000, 64);
  const double loss_all = 1.0 - ra.gbps / r0.gbps;
  const double share = 260.0 / 3900.0;
  CHECK(loss_all >= share - 0.002);
  CHECK(loss_all <= share + 0.015);  // plus draining and precharging before each REFab
  // One REFab per pseudo-channel per tREFI (3900 cycles of 1 ns).
  const auto due = static_cast<std::uint64_t>(std::floor(ra.ns / 3900.0));
  CHECK(ra.stats.refreshes >= 16 * due);
  CHECK(ra.stats.refreshes <= 16 * (due + 1));
  // Per-bank: one REFsb per tREFIsb (243 cycles) per pseudo-channel.
  const auto due_sb = static_cast<std::uint64_t>(std::floor(rp.ns / 243.0));
  CHECK(rp.stats.refreshes >= 16 * due_sb);
  CHECK(rp.stats.refreshes <= 16 * (due_sb + 1));
  CHECK(1.0 - rp.gbps / r0.gbps < loss_all);
}

TEST_CASE("per-bank refresh holds its bank only, even for the oldest burst past the starvation cap") {
  // Random reads keep passing the oldest burst; when its bank refreshed, it
  // reached the cap of 16 and was served alone, so the whole pseudo-channel
  // waited out its bank's refresh: 66.8 GB/s against 94.1 with all-bank
  // refresh. A REFsb holds one bank of 16 for about tRFCsb / tREFIsb = 160 /
  // 243 of a round's 16 slots, 4.1 % of bank time, under all-bank refresh's
  // 260 / 3900 = 6.7 % of all of it: per-bank may cost no more.
  MemoryConfig all = test::preset("hbm2.yaml");
  MemoryConfig per = test::preset("hbm2.yaml");
  per.controller.refresh = RefreshMode::kPerBank;
  const Run ra = stream(all, "random", 256, 20000, 64);
  const Run rp = stream(per, "random", 256, 20000, 64);
  INFO("all-bank " << ra.gbps << " GB/s, per-bank " << rp.gbps << " GB/s");
  CHECK(rp.gbps >= 0.97 * ra.gbps);
  // The bus idle time a burst waited through its bank's refresh is refresh's (per-bank refresh
  // was never charged: its waits read as row misses).
  double refresh_share = 0;
  for (const auto& [cause, share] : rp.summary.bus_idle_share)
    if (cause == "refresh") refresh_share = share;
  CHECK(refresh_share > 0.01);
}

TEST_CASE("refresh timings at the loader's bounds still let every request finish") {
  // The tightest refresh the loader accepts (config_loader.cpp), with w the
  // longest a refresh may wait for its banks to close (the longer of tRC and
  // a write's CWL + burst + tWR + tRP, plus an activate's row-bus cycles):
  // all-bank tRFC = tREFI - w - tRC; per-bank tREFIsb = tRREFD + w with
  // tRFCsb = banks x tREFIsb - w - tRREFD - tRC. Past them, runs livelocked (the next
  // refresh closed the rows activates opened before their column commands)
  // or per-bank refresh fell behind its rate; the timing checker, always on
  // here, counts the refreshes each bank gets.
  for (const auto& pattern : {"random", "mix"}) {
    INFO(pattern);
    MemoryConfig all = test::preset("hbm2.yaml");
    const HbmTiming& t = all.device.t;
    const std::uint32_t wait = std::max(t.RC, t.CWL + t.burst_cycles + t.WR + t.RP) + t.ACT_cycles;
    all.device.t.RFC = t.REFI - t.RC - wait;
    REQUIRE_NOTHROW(validate(all));
    const Run a = stream(all, pattern, 256, 5000, 64, 0.5);
    CHECK(a.stats.refreshes >= static_cast<std::uint64_t>(a.ns / all.device.t.REFI) * 16 - 16);
    MemoryConfig per = test::preset("hbm2.yaml");
    per.controller.refresh = RefreshMode::kPerBank;
    per.device.t.REFIsb = per.device.t.RREFD + wait;
    per.device.t.RFCsb = per.device.org.banks() * per.device.t.REFIsb - wait - per.device.t.RREFD - per.device.t.RC;
    REQUIRE_NOTHROW(validate(per));
    const Run p = stream(per, pattern, 256, 5000, 64, 0.5);
    // One refresh per tREFIsb on each of the 16 pseudo-channels, but for the one each may have pending.
    CHECK(p.stats.refreshes >= static_cast<std::uint64_t>(p.ns / per.device.t.REFIsb) * 16 - 16);
  }
}

TEST_CASE("timings whose rows the next refresh closes before their column command are refused, not run") {
  // tRCDWR longer than tREFI: every write's row would be closed by the next refresh before its column
  // command may issue, and the run would go on for ever (the controller's backstop stopped it after 64
  // refresh rounds without a column command). The window between refreshes must hold a row cycle and
  // then tRCD: 48 + 7800 > 3900 - 260 = 3640 cycles all-bank, above 16 banks x tREFIsb - tRFCsb per-bank.
  for (const RefreshMode mode : {RefreshMode::kAllBank, RefreshMode::kPerBank}) {
    MemoryConfig cfg = test::preset("hbm2.yaml");
    cfg.controller.refresh = mode;
    cfg.device.t.RCDWR = 2 * cfg.device.t.REFI;
    const HbmTiming& t = cfg.device.t;
    // After a refresh up to 50 cycles late (its wait for the banks to close), and per-bank tRREFD 8.
    const std::string rule = mode == RefreshMode::kAllBank
                                 ? "RFC 260 + 50 + RCDWR 7800 = 8110 cycles must be at most REFI 3900"
                                 : "RFCsb 160 + 50 + RREFD 8 + RCDWR 7800 = 8018 cycles must be at most 16 banks x "
                                   "REFIsb " + std::to_string(t.REFIsb) + " = " + std::to_string(16 * t.REFIsb);
    CHECK_THROWS_WITH(validate(cfg), Catch::Contains("field 'device.timing.RCDWR': " + rule +
                                                     ": each row opened would be "
                                                     "closed by the next refresh before its write"));
    CHECK_THROWS_AS(HbmModel("hbm", cfg), std::invalid_argument);
    // The same tRCD on reads, and with refresh off nothing closes the rows.
    cfg.device.t.RCDWR = 14;
    cfg.device.t.RCDRD = 7800;
    CHECK_THROWS_WITH(validate(cfg), Catch::Contains("device.timing.RCDRD") && Catch::Contains("RCDRD 7800 = "));
    cfg.controller.refresh = RefreshMode::kNone;
    CHECK_NOTHROW(validate(cfg));
  }
}

TEST_CASE("a read/write mix drains writes and stays checker-clean") {
  MemoryConfig cfg = test::preset("hbm2.yaml");
  const Run r = stream(cfg, "mix", 64, 20000, 64, 0.5);
  CHECK(r.gbps > 0);
  CHECK(r.gbps < 256.0);
}

TEST_CASE("HBM3 and HBM2E presets stream near their own peaks") {
  for (const char* name : {"hbm2e_3200.yaml", "hbm2e_3600.yaml", "hbm3.yaml"}) {
    MemoryConfig cfg = test::preset(name);
    cfg.controller.refresh = RefreshMode::kNone;
    const double peak = cfg.device.peak_gbps();
    const std::uint32_t window = static_cast<std::uint32_t>(64 * peak / 256.0 * 2);
    const Run r = stream(cfg, "seq", 256, 20000, window);
    INFO(name << ": " << r.gbps << " GB/s of " << peak);
    CHECK(r.gbps <= peak * 1.0001);
    CHECK(r.gbps >= 0.95 * peak);
  }
}

TEST_CASE("the summary names what kept the data bus idle") {
  auto run = [](MemoryConfig cfg, const std::string& pattern, std::uint32_t bytes, std::uint32_t window) {
    return stream(cfg, pattern, bytes, 20000, window).summary;
  };
  // Sequential with all-bank refresh, each at its due cycle (postponed, a
  // run this short would refresh not at all): the bus idles almost only
  // for refresh.
  MemoryConfig each = test::preset("hbm2.yaml");
  each.controller.refresh_postpone = 0;
  const HbmSummary seq = run(each, "seq", 256, 64);
  REQUIRE_FALSE(seq.bus_idle_share.empty());
  CHECK(seq.bus_idle_share.front().first == "refresh");
  CHECK(seq.binding_constraint == "data bus");
  CHECK(seq.bus_busy_fraction == Approx((seq.read_bandwidth_gbps + seq.write_bandwidth_gbps) / 256.0));
  // Random 32 B reads, closed page, no refresh: every burst waits for its activate.
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.controller.refresh = RefreshMode::kNone;
  cfg.controller.page_policy = PagePolicy::kClosed;
  const HbmSummary rnd = run(cfg, "random", 32, 1024);
  CHECK(rnd.bus_idle_share.front().first == "row misses (activate)");
  // Few requests in flight: the queues stay nearly empty.
  const HbmSummary thin = run(test::preset("hbm2.yaml"), "seq", 64, 4);
  CHECK(thin.binding_constraint.rfind("requests in flight", 0) == 0);
}

TEST_CASE("a read/write mix's idle bus is charged to its turnarounds, not to the shared command bus") {
  // Sequential 256 B, a quarter writes, no refresh: the bus idles for tRTW (13 - 2 = 11 cycles) at
  // each switch to writes and tWTR (CWL 5 + burst 2 + tWTR_S 6 - 2 = 11) at each switch back.
  // When the other pseudo-channel of the channel took the command bus in the cycle the turnaround
  // ended, the whole wait was charged to the bus: "mostly for command bus", 40 % of the idle time.
  MemoryConfig cfg = test::preset("hbm2.yaml");
  cfg.controller.refresh = RefreshMode::kNone;
  const Run r = stream(cfg, "seq", 256, 20000, 64, 0.25);
  REQUIRE_FALSE(r.summary.bus_idle_share.empty());
  double turnarounds = 0, bus = 0;
  for (const auto& [cause, share] : r.summary.bus_idle_share) {
    if (cause == "tRTW" || cause == "tWTR_S" || cause == "tWTR_L") turnarounds += share;
    if (cause == "command bus") bus = share;
  }
  INFO("turnarounds " << turnarounds << ", command bus " << bus);
  CHECK((r.summary.bus_idle_share.front().first == "tRTW" || r.summary.bus_idle_share.front().first == "tWTR_S"));
  CHECK(turnarounds > 0.5);
  CHECK(bus < 0.1);
  // The stall cycles split alike: each command's wait past the rules' time is the bus's.
  CHECK(r.stats.stall_cycles[static_cast<int>(Constraint::kRTW)] >
        r.stats.stall_cycles[static_cast<int>(Constraint::kCmdBus)]);
}

TEST_CASE("bandwidth is reported per channel and per pseudo-channel") {
  // HBM2's mapping "ro-ba-co:4-ch-pc-bg-co:1" puts the pseudo-channel in
  // address bit 8 and the channel in bits 9 to 11: a 1 KiB stride keeps
  // bits 8 and 9 clear, so 256 B reads go to pseudo-channel 0 of channels
  // 0, 2, 4 and 6 in turn, a quarter of the requests each.
  const HbmSummary s = stream(test::preset("hbm2.yaml"), "stride", 256, 8000, 64, 0, 1024).summary;
  REQUIRE(s.channel_read_gbps.size() == 8);
  REQUIRE(s.pc_read_gbps.size() == 16);
  const double each = 2000.0 * 256 / s.sim_time_ns;  // GB/s: bytes per ns
  double sum = 0;
  for (std::uint32_t ch = 0; ch < 8; ++ch) {
    INFO("channel " << ch);
    CHECK(s.channel_read_gbps[ch] == Approx(ch % 2 == 0 ? each : 0.0));
    CHECK(s.pc_read_gbps[2 * ch] == Approx(s.channel_read_gbps[ch]));
    CHECK(s.pc_read_gbps[2 * ch + 1] == 0.0);
    CHECK(s.channel_write_gbps[ch] == 0.0);
    sum += s.channel_read_gbps[ch];
  }
  CHECK(sum == Approx(s.read_bandwidth_gbps));
  // Each of the four runs at 15 of its 16 GB/s (global numbers 2 x channel).
  CHECK(s.binding_constraint == "data buses of pseudo-channels 0, 4, 8, 12 (traffic concentrates there)");
}

TEST_CASE("the summary counts requests in flight by Little's law") {
  auto run = [](const std::string& pattern, std::uint32_t window) {
    return stream(test::preset("hbm2.yaml"), pattern, 256, 5000, window).summary;
  };
  // A pointer chase issues each load when the one before completes, from
  // time 0: exactly one is in flight all the time.
  const HbmSummary chase = run("chase", 64);
  CHECK(chase.avg_in_flight == Approx(1.0).epsilon(1e-9));
  CHECK(chase.outstanding == 64);
  // More allowed would change nothing: the chase itself supplies one at a time, and has
  // nothing to offer while its one load is out (all the time but the instants between).
  CHECK(chase.source_idle_fraction > 0.999);
  CHECK_THAT(chase.binding_constraint,
             Catch::StartsWith("request supply (the source had nothing to offer 99.9") &&
                 Catch::EndsWith(" % of the time with room in the window: a trace's own timing, or each load "
                                 "waiting for the one before)"));
  // Sequential reads keep the window full but for the start and the end.
  const HbmSummary seq = run("seq", 64);
  CHECK(seq.avg_in_flight <= 64.0);
  CHECK(seq.avg_in_flight >= 0.95 * 64);
  CHECK(chase.queue_full_fraction == 0.0);
  CHECK(seq.source_idle_fraction == 0.0);  // a pattern always has its next request ready
}

TEST_CASE("a trace whose own timing sets the rate is named the binding limit whatever the window") {
  // One 64 B read a cycle (64 GB/s of HBM2's 256), each to another row: the trace offers what
  // the memory delivers, with about 53 in flight. With 56 or 64 allowed that passed 80 % of the
  // window, and the summary blamed row conflicts (with 100, the request supply).
  const mxc::testing::TempDir dir;
  const std::string path = dir / "timed.trace";
  {
    std::ofstream out(path);
    for (int i = 0; i < 20000; ++i)
      out << "0x" << std::hex << i * 4096 + (i % 16) * 256 << std::dec << " READ " << i << "\n";
  }
  for (std::uint32_t window : {56u, 64u, 100u}) {
    INFO("outstanding " << window);
    HbmModel m("hbm", test::preset("hbm2.yaml"));
    TraceSource src(path, TraceFormat::kDramsim3, 1000, 64);
    const LoopResult r = run_closed_loop(m, src, window);
    const HbmSummary s = summarize(m, r);
    CHECK(s.read_bandwidth_gbps == Approx(64.0).epsilon(0.01));
    CHECK(s.source_idle_fraction > 0.9);
    CHECK_THAT(s.binding_constraint, Catch::StartsWith("request supply (the source had nothing to offer"));
  }
}

TEST_CASE("the summary names the requests in flight when every one allowed is and none waits for room") {
  // Random 64 B reads, open page: nearly every one is a row conflict, and the bus idles mostly for
  // them, yet 64 in flight over 16 queues of 32 bursts leave room: the window binds (Little's law,
  // window x size / latency), and twice the window carries more.
  auto run = [](std::uint32_t window) {
    return stream(test::preset("hbm2.yaml"), "random", 64, 20000, window).summary;
  };
  const HbmSummary w64 = run(64), w128 = run(128);
  REQUIRE_FALSE(w64.bus_idle_share.empty());
  CHECK(w64.bus_idle_share.front().first == "row conflicts (precharge + activate)");
  CHECK(w64.binding_constraint.rfind("requests in flight (every one allowed is in flight", 0) == 0);
  CHECK(w64.read_bandwidth_gbps == Approx(w64.avg_in_flight * 64 / w64.avg_latency_ns).epsilon(0.01));
  CHECK(w128.read_bandwidth_gbps > 1.3 * w64.read_bandwidth_gbps);
}

TEST_CASE("the summary names a full queue holding back the requests behind it") {
  auto run = [](std::uint32_t read_queue) {
    MemoryConfig cfg = test::preset("hbm2.yaml");
    cfg.controller.read_queue = read_queue;
    return stream(cfg, "random", 256, 10000, 64).summary;
  };
  // 64 random 256 B reads are 512 bursts over 16 queues of 32: some queue
  // is full nearly all the time, and the request waiting for it stops the
  // closed loop from offering the ones behind it.
  const HbmSummary shallow = run(32);
  CHECK(shallow.queue_full_fraction > 0.9);
  CHECK(shallow.avg_in_flight < 0.8 * 64);
  CHECK(shallow.binding_constraint.rfind("queue room", 0) == 0);
  // A queue of 128 bursts fills only when 16 of the 64 requests in flight
  // fall in its pseudo-channel (4 do on average): the window stays full,
  // and the bandwidth rises.
  const HbmSummary deep = run(128);
  CHECK(deep.queue_full_fraction < 0.05);
  CHECK(deep.avg_in_flight > 0.95 * 64);
  CHECK(deep.binding_constraint.rfind("queue room", 0) != 0);
  CHECK(deep.read_bandwidth_gbps > 1.2 * shallow.read_bandwidth_gbps);
  // A 256 KiB stride keeps every address bit below the row's the same on
  // HBM2's mapping: all requests go to one bank, each a row conflict. Its
  // queue is full all the same, but room would not help: the bank's row
  // cycle binds, and the summary says so.
  const HbmSummary one_bank = stream(test::preset("hbm2.yaml"), "stride", 64, 3000, 64, 0, 256 * 1024).summary;
  CHECK(one_bank.queue_full_fraction > 0.9);
  CHECK(one_bank.row_conflicts > 0.99 * 3000);
  CHECK(one_bank.binding_constraint == "data bus idle mostly for row conflicts (precharge + activate)");
}

TEST_CASE("the activate ceiling counts the channel's shared row bus") {
  // Random 64 B reads, open page: nearly every request is a row conflict,
  // a PRE and a two-cycle ACT on its channel's row bus, which the channel's
  // two pseudo-channels share: per pseudo-channel one ACT per
  // 2 x (2 + PREs per ACT) cycles, fewer than tRRD_S's one per 4.
  for (const bool shared : {true, false}) {
    MemoryConfig cfg = test::preset("hbm2.yaml");
    cfg.controller.shared_command_bus = shared;
    const Run r = stream(cfg, "random", 64, 5000, 64);
    const HbmSummary& s = r.summary;
    const double bytes_per_act = static_cast<double>(r.bytes) / static_cast<double>(r.stats.acts);
    const double pres_per_act = static_cast<double>(r.stats.pres) / static_cast<double>(r.stats.acts);
    const double acts_per_cycle = shared ? 1.0 / (2 * (2 + pres_per_act)) : 1.0 / 4;  // per pseudo-channel, tCK 1 ns
    INFO("shared " << shared << ", PREs per ACT " << pres_per_act);
    CHECK(pres_per_act > 0.9);
    CHECK(s.activate_ceiling_gbps == Approx(16 * acts_per_cycle * bytes_per_act));
  }
}

TEST_CASE("with one command bus the activate ceiling counts the column commands on it too") {
  // Closed page, random 32 B reads: each request is an ACT (1 cycle here)
  // and a read with auto-precharge (1 cycle), and without dual command they
  // take the same bus: per pseudo-channel one ACT per (1 + PREs per ACT +
  // bursts per ACT) cycles, 2, and twice that when the channel's two
  // pseudo-channels share it. tRRD_S 2 and tFAW 8 allow one per 2 cycles,
  // every bank once per tRC one per 3: the bus binds shared, tRC alone.
  for (const bool shared : {true, false}) {
    MemoryConfig cfg = test::preset("hbm2.yaml");
    cfg.controller.dual_command = false;
    cfg.controller.shared_command_bus = shared;
    cfg.controller.page_policy = PagePolicy::kClosed;
    cfg.controller.refresh = RefreshMode::kNone;
    cfg.device.t.RRD_S = cfg.device.t.RRD_L = 2;
    cfg.device.t.FAW = 8;
    cfg.device.t.ACT_cycles = 1;
    const Run r = stream(cfg, "random", 32, 20000, 1024);
    const double acts = static_cast<double>(r.stats.acts);
    const double per_act =
        1 + static_cast<double>(r.stats.pres) / acts + static_cast<double>(r.stats.read_bursts) / acts;
    // Per pseudo-channel, tCK 1 ns: the shared bus's rate, or every bank once per tRC 48.
    const double acts_per_cycle = shared ? 1.0 / (per_act * 2) : 16.0 / 48;
    INFO("shared " << shared << ", bus cycles per ACT " << per_act);
    CHECK(per_act == Approx(2).epsilon(0.01));
    CHECK(r.summary.activate_ceiling_gbps == Approx(16 * acts_per_cycle * static_cast<double>(r.bytes) / acts));
    if (shared) CHECK(r.summary.binding_constraint == "activate rate (command bus)");
  }
}
