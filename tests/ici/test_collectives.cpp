// Collective times against the alpha-beta formulas of the reference notes:
// ring all-reduce 2(p-1)a + 2((p-1)/p)Nb, dimension by dimension
// 2 sum(k_i - 1) a + 2((p-1)/p)Nb, all axes with N split over 2n parts.
#include <catch2/catch.hpp>

#include <atomic>
#include <vector>

#include "models/ici/analytic_fabric.h"
#include "models/ici/collective.h"
#include "models/ici/collective_runner.h"
#include "models/ici/schedule_bound.h"
#include "models/ici/torus_fabric.h"
#include "tests/ici/watched_loop.h"

using namespace mxc;
using namespace mxc::ici;

namespace {

IciConfig pod(std::vector<std::uint32_t> dims) {
  IciConfig c;  // defaults: 45 GB/s, 500 ns link + 500 ns router, 4 KiB payload, 64 B header
  c.dims = std::move(dims);
  c.wrap = {true};
  return c;
}

const double kA = 1'000'000.0;      // ps per hop: router + link
const double kB = 1e12 / 45e9;      // ps per byte

struct Outcome {
  Time time;
  Time bound;
  BoundTerms terms;
};

template <class F>
Outcome run(const IciConfig& cfg, Collective c, Algorithm a, std::uint64_t bytes) {
  F f(cfg);
  const Schedule s = build_schedule(c, a, f.topology(), bytes);
  CollectiveRunner r(f, f.topology());
  const CollectiveRun run = r.run(s);
  const BoundTerms b = schedule_bound(s, f.topology(), cfg);
  while (f.next_event_time() != kNever) f.advance_to(f.next_event_time());  // credits still returning
  REQUIRE(f.in_flight() == 0);
  return {run.time_ps(), b.total_ps, b};
}

}  // namespace

TEST_CASE("alpha-beta bounds equal the textbook formulas") {
  const std::uint64_t n = 8ull << 20;
  {
    const Topology t({8}, {true});
    const auto b = schedule_bound(build_schedule(Collective::kAllReduce, Algorithm::kRing, t, n), t, pod({8}));
    CHECK(b.latency_ps == Approx(2 * 7 * kA));
    CHECK(b.bandwidth_ps == Approx(2.0 * 7 / 8 * n * kB));
    const auto bi =
        schedule_bound(build_schedule(Collective::kAllReduce, Algorithm::kBidirRing, t, n), t, pod({8}));
    CHECK(bi.bandwidth_ps == Approx(7.0 / 8 * n * kB));  // halved
    const auto rs =
        schedule_bound(build_schedule(Collective::kReduceScatter, Algorithm::kRing, t, n), t, pod({8}));
    const double expect = 7 * kA + 7.0 / 8 * n * kB;  // rounded up to a picosecond
    CHECK(static_cast<double>(rs.total_ps) >= expect);
    CHECK(static_cast<double>(rs.total_ps) < expect + 1);
  }
  {
    const Topology t({4, 4}, {true});
    const auto d = schedule_bound(build_schedule(Collective::kAllReduce, Algorithm::kDimOrder, t, n), t, pod({4, 4}));
    CHECK(d.latency_ps == Approx(2 * (3 + 3) * kA));
    CHECK(d.bandwidth_ps == Approx(2.0 * 15 / 16 * n * kB));
    const auto x = schedule_bound(build_schedule(Collective::kAllReduce, Algorithm::kAllAxes, t, n), t, pod({4, 4}));
    CHECK(x.latency_ps == Approx(2 * (3 + 3) * kA));
    CHECK(x.bandwidth_ps == Approx(2.0 * 15 / 16 * (n / 4) * kB));  // 4 parts on 4 ports
  }
}

TEST_CASE("large collectives on the packet model are within 5% of the alpha-beta bound") {
  struct Case {
    std::vector<std::uint32_t> dims;
    Collective c;
    Algorithm a;
    std::uint64_t bytes;
  };
  const Case cases[] = {
      {{8}, Collective::kAllReduce, Algorithm::kRing, 32ull << 20},
      {{8}, Collective::kAllReduce, Algorithm::kBidirRing, 32ull << 20},
      {{8}, Collective::kReduceScatter, Algorithm::kRing, 32ull << 20},
      {{8}, Collective::kAllGather, Algorithm::kRing, 32ull << 20},
      {{4, 4}, Collective::kAllReduce, Algorithm::kDimOrder, 32ull << 20},
      {{4, 4}, Collective::kAllReduce, Algorithm::kAllAxes, 64ull << 20},
      {{4, 4, 4}, Collective::kAllReduce, Algorithm::kAllAxes, 64ull << 20},
  };
  for (const Case& k : cases) {
    INFO(to_string(k.c) << "/" << to_string(k.a) << " on " << k.dims.size() << "D");
    const Outcome o = run<TorusFabric>(pod(k.dims), k.c, k.a, k.bytes);
    CHECK(o.time >= o.bound);
    CHECK(static_cast<double>(o.time) <= 1.05 * static_cast<double>(o.bound));
  }
}

TEST_CASE("tiny collectives take the latency term") {
  for (Algorithm a : {Algorithm::kRing, Algorithm::kDimOrder, Algorithm::kAllAxes}) {
    INFO(to_string(a));
    const Outcome o = run<TorusFabric>(pod({4, 4}), Collective::kAllReduce, a, 64);
    const double latency = a == Algorithm::kRing ? 2 * 15 * kA : 2 * 6 * kA;
    CHECK(o.terms.latency_ps == Approx(latency));
    CHECK(static_cast<double>(o.time) >= latency);
    CHECK(static_cast<double>(o.time) <= 1.05 * latency);
  }
}

TEST_CASE("the analytic fabric gives the bound plus header overhead") {
  const Outcome o = run<AnalyticFabric>(pod({4, 4, 4}), Collective::kAllReduce, Algorithm::kDimOrder, 64ull << 20);
  CHECK(o.time >= o.bound);
  CHECK(static_cast<double>(o.time) <= 1.03 * static_cast<double>(o.bound));
}

TEST_CASE("analytic all-to-all on a 4x4x4 torus is no faster than the links out of a chip allow") {
  // Each chip sends 63 messages of N/64 bytes, all over its 6 outgoing links: at least
  // 63 serialisations of N/64 + headers shared by 6 links. At 4 MiB: 63 x 16 packets of
  // 4160 B (92445 ps each at 45 GB/s, rounded up) / 6 = 15.53 us. All-axes sends them all
  // at once.
  const IciConfig cfg = pod({4, 4, 4});
  const std::uint64_t n = 4ull << 20;
  const double floor_ps = 63.0 * 16 * 92'445 / 6;
  REQUIRE(cfg.message_serialise_ps(n / 64) == 16 * 92'445);
  for (Algorithm a : {Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kDimOrder, Algorithm::kAllAxes}) {
    INFO(to_string(a));
    const Outcome an = run<AnalyticFabric>(cfg, Collective::kAllToAll, a, n);
    CHECK(static_cast<double>(an.time) >= floor_ps);
  }
}

TEST_CASE("the bound of a ring on a 3-chip line charges each hop of the critical chain once") {
  // Snake ring 0 -> 1 -> 2 -> 0 on a line without wraparound: 2 -> 0 goes
  // back over two hops. Chip c starts a step when its message of the step
  // before has come, so the last of the 4 all-reduce steps ends after the
  // longest chain of 4 messages, 2 -> 0 -> 1 -> 2 -> 0: 2 + 1 + 1 + 2 = 6
  // hops, each message 1000 B (3000 / 3) of payload. Zero-load: 6 a plus 4
  // serialisations of 1000 + 64 B, 23 644.4 ps rounded up to 23 645 ps.
  IciConfig cfg = pod({3});
  cfg.wrap = {false};
  const Time expect_time = 6'000'000 + 4 * 23'645;
  const Outcome an = run<AnalyticFabric>(cfg, Collective::kAllReduce, Algorithm::kRing, 3000);
  const Outcome pk = run<TorusFabric>(cfg, Collective::kAllReduce, Algorithm::kRing, 3000);
  CHECK(an.time == expect_time);
  CHECK(pk.time == expect_time);  // no two messages share a link
  CHECK(an.terms.latency_ps == Approx(6 * kA));
  CHECK(an.terms.bandwidth_ps == Approx(4 * 1000 * kB));
  CHECK(an.bound <= an.time);
}

TEST_CASE("the bound of reduce-scatter, all-gather and all-reduce is at most the simulated time") {
  struct Topo {
    std::vector<std::uint32_t> dims;
    std::vector<bool> wrap;
  };
  const Topo topos[] = {{{3}, {false}},          {{5}, {false}},       {{3}, {true}},
                        {{2, 3}, {true}},        {{3, 5}, {true}},     {{3, 3}, {false}},
                        {{4, 4}, {true}},        {{3, 4}, {false, true}}, {{2, 3, 2}, {true, false, true}}};
  for (const Topo& t : topos) {
    IciConfig cfg = pod(t.dims);
    cfg.wrap = t.wrap;
    for (Collective c : {Collective::kReduceScatter, Collective::kAllGather, Collective::kAllReduce})
      for (Algorithm a : {Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kDimOrder, Algorithm::kAllAxes})
        for (std::uint64_t bytes : {1000ull, 1ull << 20}) {
          INFO(to_string(c) << "/" << to_string(a) << " " << bytes << " B on " << t.dims.size() << "-D, "
                            << t.dims[0] << " first, wrap " << t.wrap[0]);
          const Outcome pk = run<TorusFabric>(cfg, c, a, bytes);
          const Outcome an = run<AnalyticFabric>(cfg, c, a, bytes);
          CHECK(pk.bound <= pk.time);
          CHECK(an.bound <= an.time);
        }
  }
}

TEST_CASE("all-to-all completes on both fabrics and contention only adds time") {
  for (Algorithm a : {Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kDimOrder, Algorithm::kAllAxes}) {
    INFO(to_string(a));
    const Outcome t = run<TorusFabric>(pod({4, 4}), Collective::kAllToAll, a, 4ull << 20);
    const Outcome an = run<AnalyticFabric>(pod({4, 4}), Collective::kAllToAll, a, 4ull << 20);
    CHECK(t.time >= an.time);
    CHECK(static_cast<double>(t.time) <= 2.0 * static_cast<double>(t.bound));  // the bound is an estimate here
  }
}

TEST_CASE("collective schedules reject a single chip and unknown names") {
  CHECK_THROWS(build_schedule(Collective::kAllReduce, Algorithm::kRing, Topology({1}, {true}), 64));
  CHECK_THROWS(parse_algorithm("tree"));
  CHECK_THROWS(parse_collective("broadcast"));
  CHECK(parse_collective("all-reduce") == Collective::kAllReduce);
  CHECK(parse_algorithm("all-axes") == Algorithm::kAllAxes);
}

namespace {

/// A 16 MiB ring all-reduce on a 4x4 torus, watched by `progress`.
CollectiveRun watched_all_reduce(const ProgressReport& progress) {
  TorusFabric f(pod({4, 4}));
  const Schedule s = build_schedule(Collective::kAllReduce, Algorithm::kRing, f.topology(), 16u << 20);
  CollectiveRunner r(f, f.topology());
  return r.run(s, 0, progress);
}

void check_same_run(const CollectiveRun& a, const CollectiveRun& b) {
  CHECK(a.end_ps == b.end_ps);
  CHECK(a.messages == b.messages);
  CHECK(a.bytes_sent == b.bytes_sent);
}

}  // namespace

TEST_CASE("collective progress reports come in time order up to the end and change nothing simulated") {
  const CollectiveRun plain = watched_all_reduce({});
  std::vector<Time> seen;
  check_same_run(test::run_reporting(watched_all_reduce, seen), plain);
  REQUIRE(seen.size() >= 2);
  CHECK(std::is_sorted(seen.begin(), seen.end()));
  CHECK(seen.back() <= plain.end_ps);
}

TEST_CASE("a collective looks at its stop flag by the messages it handles, not only by its event times") {
  // All-to-all on a 16x16 torus: 256 x 255 messages over far fewer event times (every chip sends at
  // once), so a look every 4096 event times would come about never; one every 4096 messages comes
  // about 16 times.
  const IciConfig cfg = pod({16, 16});
  AnalyticFabric f(cfg);
  const Schedule s = build_schedule(Collective::kAllToAll, Algorithm::kAllAxes, f.topology(), 256 * 1024);
  CollectiveRunner r(f, f.topology());
  std::size_t looks = 0;
  const CollectiveRun run = r.run(s, 0, {.report = [&](Time, std::uint64_t) { ++looks; }, .interval_seconds = 0});
  REQUIRE(run.messages >= 256 * 255);
  CHECK(looks >= run.messages / ProgressTicker<>::kStride - 1);
}

TEST_CASE("a stop flag abandons the bound of a large collective too") {
  // A ring all-reduce on 8192 chips: 16 382 steps of 8192 chips each, about a tenth of a second.
  const IciConfig cfg = pod({8192});
  const Topology topo({8192}, {true});
  const Schedule s = build_schedule(Collective::kAllReduce, Algorithm::kRing, topo, 1 << 20);
  std::atomic<bool> stop{true};
  ProgressReport watch;
  watch.stop = &stop;
  CHECK_THROWS_AS(schedule_bound(s, topo, cfg, watch), LoopStopped);
  stop = false;
  const BoundTerms clear = schedule_bound(s, topo, cfg, watch);
  CHECK(clear.total_ps == schedule_bound(s, topo, cfg).total_ps);
  // All-to-all on 4096 chips: each step gives each chip 4095 paths of up to 2048 hops; a look per
  // chip came one step in about two minutes, one per path comes at once.
  stop = true;
  const Topology ring({4096}, {true});
  const Schedule all = build_schedule(Collective::kAllToAll, Algorithm::kAllAxes, ring, 1 << 20);
  CHECK_THROWS_AS(schedule_bound(all, ring, pod({4096}), watch), LoopStopped);
}

TEST_CASE("a stop flag abandons a collective at the next look and changes nothing while it is clear") {
  const CollectiveRun plain = watched_all_reduce({});
  check_same_run(test::run_with_clear_stop(watched_all_reduce), plain);
  // Set by the second report: the run ends at that same look, before the collective completes.
  const test::StoppedRun second = test::stop_at_report(watched_all_reduce, 2);
  REQUIRE(second.reports.size() == 2);
  CHECK(second.stopped_at == second.reports.back());
  CHECK(second.stopped_at < plain.end_ps);
}
