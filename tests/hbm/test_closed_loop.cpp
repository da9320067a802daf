// run_closed_loop skips ahead (to the earliest possible completion while its
// window is full or its source waits, to the room a refused request needs)
// instead of stopping at every event of the model. Against a plain loop that
// stops at every event and offers a refused request again each time, it
// must complete every request at the same time and leave the same
// statistics, with and without a command observer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "models/hbm/closed_loop.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc;
using namespace mxc::hbm;

namespace {

struct Outcome {
  std::vector<test::Completion> done;
  PcStats stats;
  std::uint64_t commands = 0;
};

/// The reference: every event of the model is a stop, and a waiting
/// request is offered at each one.
void plain_loop(HbmModel& m, RequestSource& src, std::uint32_t outstanding) {
  std::uint64_t in_flight = 0, id = 0;
  Time now = 0, last = 0;
  m.set_completion([&](const MemResponse& r) {
    --in_flight;
    last = std::max(last, r.complete);
    src.on_complete(r);
  });
  SourceItem item;
  MemRequest req;
  bool have = false, ended = false;
  for (;;) {
    while (in_flight < outstanding && !ended) {
      if (!have) {
        const auto n = src.next(item);
        if (n == RequestSource::Next::kEnd) ended = true;
        if (n != RequestSource::Next::kReady) break;
        have = true;
        make_request(item, id++, now, req);
      }
      if (req.issue > now || !m.send(req, now)) break;
      have = false;
      ++in_flight;
    }
    const Time t_source = have && in_flight < outstanding && req.issue > now ? req.issue : kNever;
    const Time t = std::min(m.next_event_time(), t_source);
    if (t == kNever) break;
    now = std::max(now, t);
    m.advance_to(now);
  }
  REQUIRE(in_flight == 0);
  REQUIRE(!have);
  m.finish(last);
}

Outcome run(const MemoryConfig& cfg, const PatternOptions& p, std::uint32_t outstanding, bool observe, bool plain) {
  HbmModel m("hbm", cfg);
  Outcome o;
  if (observe) m.set_command_observer([&](std::uint32_t, const DramCommand&) { ++o.commands; });
  test::RecordingSource src(p);
  if (plain) plain_loop(m, src, outstanding);
  else run_closed_loop(m, src, outstanding);
  REQUIRE(m.checker()->violation_count() == 0);
  o.done = src.done;
  o.stats = m.total_stats();
  return o;
}

}  // namespace

TEST_CASE("the closed loop's skips complete every request as a loop that stops at every event") {
  struct Traffic {
    const char* pattern;
    std::uint32_t bytes;
    double write_ratio;
    std::uint32_t outstanding;  // 64 x 256 B: refusals; 4: a full window; chase: a waiting source
  };
  const Traffic traffic[] = {
      {"random", 256, 0.0, 64}, {"seq", 256, 0.0, 64}, {"seq", 32, 0.0, 4},
      {"mix", 256, 0.5, 64},    {"mix", 96, 0.5, 8},   {"chase", 64, 0.0, 1},
  };
  for (const std::uint32_t stacks : {1u, 2u}) {
    for (const Traffic& t : traffic) {
      MemoryConfig cfg = test::preset("hbm2.yaml");
      cfg.stacks = stacks;
      PatternOptions p;
      p.pattern = t.pattern;
      p.bytes = t.bytes;
      p.write_ratio = t.write_ratio;
      p.requests = 2000;
      for (const bool observe : {false, true}) {
        INFO(stacks << " stacks, " << t.pattern << " " << t.bytes << " B, " << t.outstanding << " outstanding"
                    << (observe ? ", observed" : ""));
        const Outcome plain = run(cfg, p, t.outstanding, observe, true);
        const Outcome skipping = run(cfg, p, t.outstanding, observe, false);
        REQUIRE(plain.done.size() == p.requests);
        CHECK(skipping.done == plain.done);
        CHECK(skipping.commands == plain.commands);
        CHECK(skipping.stats.steps == plain.stats.steps);
        CHECK(skipping.stats.last_cycle == plain.stats.last_cycle);
        CHECK(skipping.stats.read_queue_integral == plain.stats.read_queue_integral);
        CHECK(skipping.stats.write_queue_integral == plain.stats.write_queue_integral);
        CHECK(skipping.stats.stall_cycles == plain.stats.stall_cycles);
        CHECK(skipping.stats.bus_idle_cycles == plain.stats.bus_idle_cycles);
      }
    }
  }
}

TEST_CASE("progress reports come at every stride of completions and change no result") {
  // With no interval every kProgressStride-th completion reports; the
  // count and the time passed must be those of that completion.
  const MemoryConfig cfg = test::preset("hbm2.yaml");
  PatternOptions p;
  p.pattern = "random";
  p.bytes = 32;  // one burst each: 200 000 requests run quickly with the checker on
  p.requests = 3 * kProgressStride + 1000;
  std::vector<std::pair<std::uint64_t, Time>> reports;
  ProgressReport progress;
  progress.interval_seconds = 0;
  progress.report = [&](Time now, std::uint64_t done) { reports.emplace_back(done, now); };

  HbmModel quiet("hbm", cfg), told("hbm", cfg);
  test::RecordingSource quiet_src(p), told_src(p);
  const LoopResult a = run_closed_loop(quiet, quiet_src, 64);
  const LoopResult b = run_closed_loop(told, told_src, 64, progress);
  CHECK(b.requests == a.requests);
  CHECK(b.sim_time_ps == a.sim_time_ps);
  REQUIRE(told_src.done == quiet_src.done);
  CHECK(told.total_stats().steps == quiet.total_stats().steps);

  // The completions in the order they were delivered: the n-th one's time is
  // the latest completion time among the first n.
  std::vector<Time> order;
  for (const test::Completion& c : quiet_src.done) order.push_back(std::get<2>(c));
  REQUIRE(reports.size() == 3);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const std::uint64_t n = (i + 1) * kProgressStride;
    CHECK(reports[i].first == n);
    CHECK(reports[i].second == *std::max_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n)));
  }
}

namespace {

/// A run of `p` with `progress`: its result, completions and statistics.
struct StopOutcome {
  LoopResult res;
  std::vector<test::Completion> done;
  PcStats stats;
};

StopOutcome run_with(const MemoryConfig& cfg, const PatternOptions& p, std::uint32_t outstanding,
                     const ProgressReport& progress) {
  HbmModel m("hbm", cfg);
  test::RecordingSource src(p);
  StopOutcome o;
  o.res = run_closed_loop(m, src, outstanding, progress);
  REQUIRE(m.checker()->violation_count() == 0);
  o.done = src.done;
  o.stats = m.total_stats();
  return o;
}

/// Same completions and statistics: the same requests ran the same way.
void check_same_run(const StopOutcome& a, const StopOutcome& b) {
  CHECK(a.res.requests == b.res.requests);
  CHECK(a.res.sim_time_ps == b.res.sim_time_ps);
  CHECK(a.res.queue_full_ps == b.res.queue_full_ps);
  CHECK(a.done == b.done);
  CHECK(a.stats.steps == b.stats.steps);
  CHECK(a.stats.last_cycle == b.stats.last_cycle);
  CHECK(a.stats.read_queue_integral == b.stats.read_queue_integral);
  CHECK(a.stats.read_bursts == b.stats.read_bursts);
  CHECK(a.stats.row_hits == b.stats.row_hits);
  CHECK(a.stats.row_conflicts == b.stats.row_conflicts);
  CHECK(a.stats.acts == b.stats.acts);
  CHECK(a.stats.refreshes == b.stats.refreshes);
  CHECK(a.stats.stall_cycles == b.stats.stall_cycles);
  CHECK(a.stats.bus_idle_cycles == b.stats.bus_idle_cycles);
}

}  // namespace

TEST_CASE("a stop set at a progress report ends the offers and completes those in flight as a run of that many") {
  const MemoryConfig cfg = test::preset("hbm2.yaml");
  PatternOptions p;
  p.pattern = "random";
  p.bytes = 32;
  p.requests = 3 * kProgressStride + 1000;
  const std::uint32_t window = 64;
  std::atomic<bool> stop{false};
  ProgressReport watch;  // the flag alone
  watch.stop = &stop;
  // A clear flag changes nothing.
  const StopOutcome plain = run_with(cfg, p, window, {});
  const StopOutcome clear = run_with(cfg, p, window, watch);
  check_same_run(clear, plain);
  CHECK_FALSE(clear.res.stopped);

  // Set by the second report: no request is offered after it, the window's worth in flight completes.
  ProgressReport progress{.report = [&](Time, std::uint64_t done) { stop = done == 2 * kProgressStride; },
                        .interval_seconds = 0,
                        .stop = &stop};
  const StopOutcome stopped = run_with(cfg, p, window, progress);
  CHECK(stopped.res.stopped);
  const std::uint64_t n = stopped.res.requests;
  CHECK(n >= 2 * kProgressStride);
  CHECK(n <= 2 * kProgressStride + window);
  // The requests offered are the first n the source made, each completed once.
  REQUIRE(stopped.done.size() == n);
  std::vector<std::uint64_t> ids;
  for (const test::Completion& c : stopped.done) ids.push_back(std::get<0>(c));
  std::sort(ids.begin(), ids.end());
  for (std::uint64_t i = 0; i < n; ++i) REQUIRE(ids[i] == i);
  // The same as a source of exactly n requests.
  p.requests = n;
  const StopOutcome exact = run_with(cfg, p, window, {});
  CHECK_FALSE(exact.res.stopped);
  check_same_run(stopped, exact);
}

TEST_CASE("a stop set before the run ends it at the first look and one set after the source ended changes nothing") {
  const MemoryConfig cfg = test::preset("hbm2.yaml");
  std::atomic<bool> stop{true};
  ProgressReport watch;  // the flag alone
  watch.stop = &stop;
  // A pointer chase has one load in flight: stopped at the kProgressStride-th completion exactly.
  PatternOptions p;
  p.pattern = "chase";
  p.bytes = 32;
  p.requests = kProgressStride + 100;
  const StopOutcome chase = run_with(cfg, p, 8, watch);
  CHECK(chase.res.stopped);
  CHECK(chase.res.requests == kProgressStride);
  p.requests = kProgressStride;
  const StopOutcome exact = run_with(cfg, p, 8, {});
  check_same_run(chase, exact);
  // Of exactly kProgressStride requests, all were offered by the first look: the stop has nothing to end.
  const StopOutcome whole = run_with(cfg, p, 8, watch);
  CHECK_FALSE(whole.res.stopped);
  check_same_run(whole, exact);
}
