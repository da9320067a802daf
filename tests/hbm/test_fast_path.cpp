// The controllers' shortcuts (MemoryConfig::fast_path: the streaming step
// and the scheduler's plan from the step before) against the general
// scheduler picking afresh on every step: on every preset pattern, refresh
// mode and page policy both must issue the same commands at the same
// cycles, complete every request at the same time and count the same
// statistics.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/hbm/closed_loop.h"
#include "models/hbm/pattern_source.h"
#include "models/hbm/trace_source.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc;
using namespace mxc::hbm;

namespace {

using CommandRecord = std::tuple<std::uint32_t, int, std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t>;
struct Run {
  std::vector<CommandRecord> commands;  // only with an observer
  std::vector<test::Completion> done;
  PcStats stats;
  std::uint64_t streaming_steps = 0, planned_steps = 0;
};

Run run(MemoryConfig cfg, bool fast, bool observe, const PatternOptions& p, std::uint32_t outstanding) {
  cfg.fast_path = fast;
  HbmModel m("hbm", cfg);
  Run r;
  if (observe)
    m.set_command_observer([&](std::uint32_t pc, const DramCommand& c) {
      r.commands.emplace_back(pc, static_cast<int>(c.cmd), c.bank, c.row, c.col, c.cycle);
    });
  test::RecordingSource src(p);
  run_closed_loop(m, src, outstanding);
  if (m.checker()) REQUIRE(m.checker()->violation_count() == 0);
  r.done = src.done;
  r.stats = m.total_stats();
  r.streaming_steps = m.streaming_steps();
  r.planned_steps = m.planned_steps();
  return r;
}

/// Offers `requests` reads and writes of 64 to 256 B at random times, most
/// between the memory's clock edges (as a tile in another clock domain
/// offers them) and a quarter on an edge, each retried 700 ps later while
/// refused, and runs the model until all have completed. Before half the
/// offers the model has run only its events before the offer's time, as
/// under a kernel that serves the sender first at a tie.
Run run_between_edges(const MemoryConfig& cfg, std::uint64_t seed, std::uint32_t requests) {
  HbmModel m("hbm", cfg);
  Run r;
  m.set_command_observer([&](std::uint32_t pc, const DramCommand& c) {
    r.commands.emplace_back(pc, static_cast<int>(c.cmd), c.bank, c.row, c.col, c.cycle);
  });
  std::uint64_t in_flight = 0;
  m.set_completion([&](const MemResponse& x) {
    r.done.emplace_back(x.id, x.accept, x.complete);
    --in_flight;
  });
  std::mt19937_64 rng(seed);
  Time t = 0;
  for (std::uint32_t i = 0; i < requests; ++i) {
    MemRequest req;
    req.id = i;
    req.addr = rng() % (std::uint64_t{1} << 22) & ~std::uint64_t{63};
    req.bytes = 64 * static_cast<std::uint32_t>(1 + rng() % 4);
    req.write = rng() % 2;
    if (req.write) req.data.assign(req.bytes, 0x5a);
    const Time tck = cfg.device.t.tCK_ps;
    t = rng() % 4 ? t + rng() % 3000 : (t / tck + 1 + rng() % 3) * tck;
    req.issue = t;
    m.advance_to(rng() % 2 || t == 0 ? t : t - 1);
    while (!m.send(req, t)) m.advance_to(t += 700);
    ++in_flight;
  }
  while (in_flight) m.advance_to(t += 700);
  m.finish(t);
  REQUIRE(m.checker()->violation_count() == 0);
  r.stats = m.total_stats();
  return r;
}

/// `same_steps`: the two ran the same controller steps (both event-driven),
/// so their step counts and last cycles stepped agree too.
void require_same_stats(const PcStats& a, const PcStats& b, bool same_steps = true) {
  CHECK(a.read_bursts == b.read_bursts);
  CHECK(a.write_bursts == b.write_bursts);
  CHECK(a.row_hits == b.row_hits);
  CHECK(a.row_misses == b.row_misses);
  CHECK(a.row_conflicts == b.row_conflicts);
  CHECK(a.acts == b.acts);
  CHECK(a.pres == b.pres);
  CHECK(a.refreshes == b.refreshes);
  CHECK(a.refresh_bank_cycles == b.refresh_bank_cycles);
  CHECK(a.read_queue_integral == b.read_queue_integral);
  CHECK(a.write_queue_integral == b.write_queue_integral);
  if (same_steps) CHECK(a.last_cycle == b.last_cycle);
  if (same_steps) CHECK(a.steps == b.steps);
  CHECK(a.bank_acts == b.bank_acts);
  CHECK(a.stall_cycles == b.stall_cycles);
  CHECK(a.bus_idle_cycles == b.bus_idle_cycles);
  CHECK(a.refresh_idle_cycles == b.refresh_idle_cycles);
  CHECK(a.miss_idle_cycles == b.miss_idle_cycles);
  CHECK(a.conflict_idle_cycles == b.conflict_idle_cycles);
}

/// The same commands in the same cycles (both runs observed), the same
/// completions and the same statistics.
void require_same_run(const Run& a, const Run& b, bool same_steps = true) {
  REQUIRE(a.commands.size() == b.commands.size());
  CHECK(a.commands == b.commands);
  CHECK(a.done == b.done);
  require_same_stats(a.stats, b.stats, same_steps);
}

/// Calls fn(cfg, pattern, outstanding) for every case the tests below
/// compare: both presets' pattern matrix, each refresh mode (all-bank also
/// with 2 postponed, over runs long enough for batches: about 4 tREFI of
/// sequential reads) and page policy.
template <class Fn>
void for_each_case(Fn fn) {
  struct Traffic {
    const char* pattern;
    std::uint32_t bytes;
    double write_ratio;
    std::uint32_t outstanding;
  };
  struct Refresh {
    RefreshMode mode;
    std::uint32_t postpone;
    std::uint64_t requests;
  };
  const Traffic traffic[] = {
      {"seq", 256, 0.0, 64},  {"seq", 64, 0.0, 64},    {"seq", 96, 0.0, 16},    {"random", 64, 0.0, 64},
      {"random", 256, 0.0, 64}, {"stride", 256, 0.0, 32}, {"mix", 256, 0.5, 64}, {"chase", 64, 0.0, 1},
  };
  const Refresh refreshes[] = {
      {RefreshMode::kAllBank, 0, 3000}, {RefreshMode::kAllBank, 2, 15000}, {RefreshMode::kPerBank, 0, 3000}};
  for (const char* preset : {"hbm2.yaml", "hbm3.yaml"}) {
    for (const Traffic& t : traffic) {
      for (const Refresh& refresh : refreshes) {
        for (PagePolicy page : {PagePolicy::kOpen, PagePolicy::kClosed}) {
          MemoryConfig cfg = test::preset(preset);
          cfg.controller.refresh = refresh.mode;
          cfg.controller.refresh_postpone = refresh.postpone;
          cfg.controller.page_policy = page;
          PatternOptions p;
          p.pattern = t.pattern;
          p.bytes = t.bytes;
          p.write_ratio = t.write_ratio;
          p.requests = refresh.requests;
          p.stride = 8192;
          INFO(preset << " " << t.pattern << " " << t.bytes << " B, refresh " << static_cast<int>(refresh.mode)
                      << " postponing " << refresh.postpone << ", page " << static_cast<int>(page));
          fn(cfg, p, t.outstanding);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("the controller shortcuts issue the same commands as the general scheduler") {
  std::uint64_t shortcut_steps = 0, planned_steps = 0;
  for_each_case([&](const MemoryConfig& cfg, const PatternOptions& p, std::uint32_t outstanding) {
    const Run slow = run(cfg, false, true, p, outstanding);
    const Run fast = run(cfg, true, true, p, outstanding);
    CHECK(slow.streaming_steps == 0);
    CHECK(slow.planned_steps == 0);
    shortcut_steps += fast.streaming_steps;
    planned_steps += fast.planned_steps;
    require_same_run(fast, slow);
    // Without an observer the controllers run one after the other.
    const Run alone = run(cfg, true, false, p, outstanding);
    CHECK(alone.done == slow.done);
    require_same_stats(alone.stats, slow.stats);
  });
  CHECK(shortcut_steps > 0);
  CHECK(planned_steps > 0);
}

TEST_CASE("controllers that sleep until their next event issue what controllers stepping every cycle issue") {
  // The reference steps every controller in every cycle with the general
  // scheduler (an idle one when the model replays its idle time), so it
  // issues each command, refreshes included, in the first cycle the
  // scheduler allows it. The event-driven run (shortcuts on, as every run
  // has them) must match it command for command: a wake-up computed too
  // late would leave a legal command waiting, which the timing checker
  // cannot see.
  std::uint64_t reference_steps = 0, event_steps = 0;
  for_each_case([&](const MemoryConfig& cfg, const PatternOptions& p, std::uint32_t outstanding) {
    MemoryConfig ticking = cfg;
    ticking.every_cycle = true;
    const Run reference = run(ticking, true, true, p, outstanding);
    const Run event = run(cfg, true, true, p, outstanding);
    CHECK(reference.streaming_steps == 0);
    CHECK(reference.planned_steps == 0);
    reference_steps += reference.stats.steps;
    event_steps += event.stats.steps;
    require_same_run(event, reference, false);
    // The run as `mxcosim hbm` makes it, with no observer and no checker:
    // the channels run one at a time, idle refreshes may be counted.
    MemoryConfig plain = cfg;
    plain.check_timing = false;
    const Run alone = run(plain, true, false, p, outstanding);
    CHECK(alone.done == reference.done);
    require_same_stats(alone.stats, reference.stats, false);
  });
  // The reference did step through the cycles the event-driven run slept over.
  CHECK(reference_steps > 2 * event_steps);
}

TEST_CASE("random controller policies: the event-driven run matches stepping every cycle") {
  // The matrix above varies the traffic on the presets' own controllers;
  // this draws the controller's policy too (queue depths, watermarks,
  // starvation cap, address mapping and hash, one or two command buses,
  // shared or separate ones, frontend and backend delays, stacks), each
  // against the every-cycle reference: every other run under the closed
  // loop with a pattern drawn, the others with requests offered between
  // and on clock edges (run_between_edges). Requests too large for the
  // queues drawn are refused by the model with an error and skipped.
  const char* presets[] = {"hbm2.yaml", "hbm2e_3200.yaml", "hbm2e_3600.yaml", "hbm3.yaml"};
  const char* mappings[] = {"ro-ba-co:4-ch-pc-bg-co:1", "ro-co-ba-bg-pc-ch", "ro-ba-bg-co-pc-ch", "ch-pc-ro-ba-bg-co",
                            "ro-ch-ba-co:3-pc-bg-co:2"};
  const char* patterns[] = {"seq", "random", "stride", "chase", "mix"};
  constexpr int kRuns = 100;
  std::mt19937_64 rng(5);
  const auto pick = [&](auto& options) { return options[rng() % std::size(options)]; };
  int compared = 0;
  for (int i = 0; i < kRuns; ++i) {
    MemoryConfig cfg = test::preset(pick(presets));
    ControllerConfig& c = cfg.controller;
    const std::uint32_t depths[] = {4, 8, 16, 32, 64};
    c.read_queue = pick(depths);
    c.write_queue = pick(depths);
    c.write_high_watermark = 1 + static_cast<std::uint32_t>(rng() % c.write_queue);
    c.write_low_watermark = static_cast<std::uint32_t>(rng() % c.write_high_watermark);
    const std::uint32_t caps[] = {1, 2, 4, 16, 64};
    c.starvation_cap = pick(caps);
    c.page_policy = rng() % 2 ? PagePolicy::kOpen : PagePolicy::kClosed;
    const RefreshMode modes[] = {RefreshMode::kAllBank, RefreshMode::kPerBank, RefreshMode::kNone};
    c.refresh = pick(modes);
    c.refresh_postpone = c.refresh == RefreshMode::kAllBank ? static_cast<std::uint32_t>(rng() % 8) : 0;
    c.address_mapping = pick(mappings);
    c.xor_bank_hash = rng() % 2;
    c.dual_command = rng() % 2;
    c.shared_command_bus = rng() % 2;
    c.frontend_cycles = static_cast<std::uint32_t>(rng() % 4);
    c.backend_cycles = static_cast<std::uint32_t>(rng() % 3);
    cfg.stacks = 1 + static_cast<std::uint32_t>(rng() % 3);
    const std::uint64_t interleaves[] = {32, 256, 4096};
    cfg.stack_interleave_bytes = pick(interleaves);
    PatternOptions p;
    p.pattern = pick(patterns);
    const std::uint32_t sizes[] = {1, 31, 32, 64, 100, 256, 1000};
    p.bytes = pick(sizes);
    p.requests = 1 + rng() % 2000;
    p.write_ratio = p.pattern == "mix" ? 0.5 : 0.0;
    const std::uint64_t strides[] = {32, 64, 4096, 12345};
    p.stride = pick(strides);
    p.seed = rng();
    const std::uint32_t windows[] = {1, 4, 64, 256};
    const std::uint32_t outstanding = pick(windows);
    INFO("run " << i << ": " << cfg.device.name << " " << p.pattern << " " << p.bytes << " B x " << p.requests
                << ", window " << outstanding);
    MemoryConfig ticking = cfg;
    ticking.every_cycle = true;
    const auto drive = [&](const MemoryConfig& c) {
      return i % 2 ? run(c, true, true, p, outstanding)
                   : run_between_edges(c, p.seed, static_cast<std::uint32_t>(p.requests));
    };
    Run reference, event;
    try {
      reference = drive(ticking);
    } catch (const std::invalid_argument& e) {
      // A request larger than a queue drawn ("... deepen the queue"), and
      // nothing else, may end a run.
      REQUIRE(std::string(e.what()).find("deepen the queue") != std::string::npos);
      continue;
    }
    event = drive(cfg);
    require_same_run(event, reference, false);
    ++compared;
  }
  CHECK(compared > kRuns * 9 / 10);  // 95 of the 100 drawn fit their queues
}

TEST_CASE("requests offered between clock edges: the event-driven run matches stepping every cycle") {
  // The closed loop offers requests at the model's own events, on clock
  // edges, once the model has run them; a tile in another clock domain
  // offers them anywhere, and at an edge perhaps before the memory has run
  // it. A request taken between edges is seen by the controller's next
  // step, a cycle before its bursts arrive: when it fills the write queue
  // to the high watermark, that step switches to writes (and may write an
  // older burst) before the bursts arrive. One taken at an edge is seen
  // from the cycle after it, whichever ran first.
  for (const char* preset : {"hbm2.yaml", "hbm3.yaml"}) {
    for (const std::uint32_t frontend : {0u, 1u, 3u}) {
      MemoryConfig cfg = test::preset(preset);
      cfg.controller.frontend_cycles = frontend;
      cfg.controller.write_high_watermark = 4;
      cfg.controller.write_low_watermark = 1;
      MemoryConfig ticking = cfg;
      ticking.every_cycle = true;
      INFO(preset << ", frontend " << frontend);
      const Run reference = run_between_edges(ticking, 17, 3000);
      const Run event = run_between_edges(cfg, 17, 3000);
      require_same_run(event, reference, false);
    }
  }
}

TEST_CASE("an idle controller's refreshes are counted, not stepped through, with the same results") {
  // Bursts of traffic between idle stretches of up to 5 million cycles
  // (about 1 300 tREFI). The timing checker sees every command, so with it
  // on every refresh is stepped through; without it, the idle ones are
  // counted. Everything the model reports must agree.
  const std::string path = "/tmp/test_hbm_" + std::to_string(::getpid()) + "_idle_gaps.trace";
  {
    std::ofstream f(path);
    std::mt19937_64 rng(11);
    std::uint64_t cycle = 0;
    for (int i = 0; i < 3000; ++i) {
      cycle += i % 500 == 499 ? 1 + rng() % 5000000 : rng() % 8;
      f << "0x" << std::hex << (rng() % (std::uint64_t{1} << 33) & ~std::uint64_t{31}) << std::dec
        << (rng() % 4 == 0 ? " WRITE " : " READ ") << cycle << "\n";
    }
  }
  // All-bank refresh also with 7 postponed: owed refreshes are issued as
  // each idle stretch begins, before any is counted.
  const std::pair<RefreshMode, std::uint32_t> refreshes[] = {
      {RefreshMode::kAllBank, 0}, {RefreshMode::kAllBank, 7}, {RefreshMode::kPerBank, 0}};
  for (const auto& [mode, postpone] : refreshes) {
    for (const PagePolicy page : {PagePolicy::kOpen, PagePolicy::kClosed}) {
      INFO("refresh " << static_cast<int>(mode) << " postponing " << postpone << ", page " << static_cast<int>(page));
      const auto run_trace = [&](bool check) {
        MemoryConfig cfg = test::preset("hbm2.yaml");
        cfg.controller.refresh = mode;
        cfg.controller.refresh_postpone = postpone;
        cfg.controller.page_policy = page;
        cfg.check_timing = check;
        auto m = std::make_unique<HbmModel>("hbm", cfg);
        TraceSource src(path, TraceFormat::kDramsim3, cfg.device.t.tCK_ps, 64);
        const LoopResult r = run_closed_loop(*m, src, 16);
        if (check) REQUIRE(m->checker()->violation_count() == 0);
        return std::make_tuple(std::move(m), r.sim_time_ps);
      };
      const auto [stepped, stepped_end] = run_trace(true);
      const auto [counted, counted_end] = run_trace(false);
      CHECK(stepped->skipped_refreshes() == 0);
      CHECK(counted->skipped_refreshes() > counted->total_stats().refreshes / 2);
      CHECK(counted_end == stepped_end);
      require_same_stats(counted->total_stats(), stepped->total_stats());
      // Each pseudo-channel's own: a channel's pair shares the row bus, and
      // which of the two refreshes first depends on the due cycle.
      for (std::uint32_t pc = 0; pc < counted->num_pcs(); ++pc)
        require_same_stats(counted->pc_stats(pc), stepped->pc_stats(pc));
      CHECK(counted->latency().mean_ns() == stepped->latency().mean_ns());
      CHECK(counted->latency().percentile_ns(99) == stepped->latency().percentile_ns(99));
    }
  }
  std::remove(path.c_str());
}
