// The RTL tile running compiled GEMMs, checked against the functional
// reference element by element.
#include <catch2/catch.hpp>

#include <map>

#include "bridge/rtl_tile.h"
#include "cosim/gemm_run.h"
#include "models/core/ideal_memory.h"

using namespace mxc;

namespace {

GemmRunResult run(std::uint32_t rows, std::uint32_t cols, GemmShape shape, std::uint64_t seed, double backpressure = 0) {
  GemmRunOptions o;
  o.rows = rows;
  o.cols = cols;
  o.shape = shape;
  o.seed = seed;
  o.memory_latency_ps = 30'000;
  o.backpressure = backpressure;
  return run_gemm_cosim(o);
}

std::string why(const GemmRunResult& r) {
  return r.error + (r.mismatches.empty() ? "" : to_string(r.mismatches[0]));
}

}  // namespace

TEST_CASE("rtl tile int8 gemm matches the reference across shapes, sizes and seeds") {
  struct Case {
    std::uint32_t rows, cols;
    GemmShape shape;
    std::uint64_t seed;
  };
  const Case cases[] = {
      {4, 4, {16, 16, 16}, 1}, {4, 4, {1, 1, 1}, 2},    {4, 4, {5, 7, 3}, 3},   {4, 4, {17, 9, 13}, 4},
      {8, 8, {16, 16, 16}, 5}, {8, 8, {11, 21, 19}, 6}, {8, 8, {3, 8, 8}, 7},   {4, 4, {300, 6, 5}, 8},
  };
  for (const Case& c : cases) {
    const auto r = run(c.rows, c.cols, c.shape, c.seed);
    INFO(c.rows << "x" << c.cols << " gemm " << c.shape.m << "x" << c.shape.k << "x" << c.shape.n << " seed " << c.seed
                << ": " << why(r));
    CHECK(r.passed);
    CHECK(r.elements_checked == std::uint64_t{c.shape.m} * c.shape.n);
  }
}

TEST_CASE("rtl tile bf16 gemm matches the reference bit for bit") {
  for (const GemmShape s : {GemmShape{16, 16, 16, DType::kBf16}, GemmShape{7, 13, 5, DType::kBf16}}) {
    for (std::uint32_t size : {4u, 8u}) {
      const auto r = run(size, size, s, 21 + size);
      INFO(size << "x" << size << " bf16 gemm " << s.m << "x" << s.k << "x" << s.n << ": " << why(r));
      CHECK(r.passed);
    }
  }
}

TEST_CASE("rtl tile stays correct under random backpressure on every channel") {
  for (std::uint64_t seed : {31u, 32u, 33u}) {
    const auto r = run(4, 4, GemmShape{13, 11, 9}, seed, 0.3);
    INFO("seed " << seed << ": " << why(r));
    CHECK(r.passed);
  }
  const auto r = run(8, 8, GemmShape{9, 17, 12, DType::kBf16}, 34, 0.5);
  INFO(why(r));
  CHECK(r.passed);
}

TEST_CASE("a corrupted result element is reported as exactly one mismatch naming it") {
  GemmRunOptions o;
  o.shape = {6, 5, 7};
  o.inject_fault = 2 * 7 + 3;  // C[2][3]
  const auto r = run_gemm_cosim(o);
  CHECK_FALSE(r.passed);
  REQUIRE(r.mismatch_count == 1);
  CHECK(r.mismatches[0].id.rfind("chip0.C[2][3]", 0) == 0);
  CHECK((std::stoll(r.mismatches[0].expected) ^ std::stoll(r.mismatches[0].actual)) == 1);
}

TEST_CASE("same seed and configuration give identical cycles and counters, and timing does not depend on data") {
  const auto a = run(4, 4, GemmShape{9, 10, 11}, 42), b = run(4, 4, GemmShape{9, 10, 11}, 42);
  CHECK(a.passed);
  CHECK(a.cycles == b.cycles);
  CHECK(a.perf == b.perf);
  const auto c = run(4, 4, GemmShape{9, 10, 11}, 43);
  CHECK(c.passed);
  CHECK(c.cycles == a.cycles);
}

TEST_CASE("performance counters agree with the program and the run") {
  const GemmShape s{20, 8, 8};
  const auto r = run(4, 4, s, 5);
  REQUIRE(r.passed);
  std::map<std::string, std::uint64_t> perf(r.perf.begin(), r.perf.end());
  CHECK(perf["instructions"] == r.instructions);
  // Every activation vector enters the array once: m rows per fold.
  const std::uint64_t folds = (8 / 4) * (8 / 4);
  CHECK(perf["array_active"] == folds * s.m);
  CHECK(perf["cycles"] >= r.cycles);
  CHECK(perf["busy_compute"] <= r.cycles);
  CHECK(perf["busy_dma"] > 0);
  // C goes out once, in whole 32-byte beats: 2 column blocks x 20 rows, each
  // block row 4 int32 = 16 bytes padded to one beat.
  CHECK(r.bytes_written == 2 * 20 * 32);
}

// docs/dma.md, "When R beats interleave in a run": random R/B interleaving only under
// backpressure, any channel's; a timing run takes the oldest ready burst, as the
// performance model does.
TEST_CASE("rtl tile interleaves R beats at random only when some AXI channel has backpressure") {
  IdealMemory mem("mem", 10'000);
  RtlTileConfig cfg;
  CHECK_FALSE(make_rtl_tile(cfg, mem)->axi().config().random_interleave);
  for (double Axi4Backpressure::*p : {&Axi4Backpressure::arready_low, &Axi4Backpressure::awready_low,
                                     &Axi4Backpressure::wready_low, &Axi4Backpressure::rvalid_gap,
                                     &Axi4Backpressure::bvalid_gap}) {
    RtlTileConfig stalled;
    stalled.axi_backpressure.*p = 0.1;
    CHECK(make_rtl_tile(stalled, mem)->axi().config().random_interleave);
  }
}
