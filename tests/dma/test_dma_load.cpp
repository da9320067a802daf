// DMA loads (HBM -> scratchpad) through the verilated mxu_dma, the AXI4 slave
// transactor and an IdealMemory. Expectations come from the descriptor alone:
// which bytes of memory land where in the scratchpad, and which bursts the
// AXI rules (4 KiB, 256 beats) allow.
#include <catch2/catch.hpp>

#include "tests/dma/dma_configs.h"

using namespace mxc;
using namespace mxc::test;

namespace {

/// Checks every scratchpad row against memory: rows the descriptor covers get
/// its bytes up to row_bytes; every other byte keeps its pre-fill pattern.
template <class B>
void check_load(B& bench, const std::vector<std::uint8_t>& before, const DmaDesc& d) {
  for (std::uint32_t r = 0; r < B::kRows; ++r) {
    const auto got = bench.sp_row(r);
    const std::uint32_t k = (r + B::kRows - d.sp_row) % B::kRows;  // descriptor row landing here
    std::vector<std::uint8_t> want(before.begin() + std::size_t{r} * B::kRowBytes,
                                   before.begin() + std::size_t{r + 1} * B::kRowBytes);
    if (k < d.rows) {
      std::vector<std::uint8_t> src(d.row_bytes);
      bench.mem().backdoor_read(d.addr + std::uint64_t{k} * d.stride, src);
      std::copy(src.begin(), src.end(), want.begin());
    }
    INFO("scratchpad row " << r << " (descriptor row " << k << ")");
    REQUIRE(got == want);
  }
}

template <class B>
void load_and_check(const DmaDesc& d, const DmaBenchOptions& opt = {}) {
  B bench(opt);
  bench.fill_patterns(d.addr & ~std::uint64_t{4095}, std::size_t{d.rows} * d.stride + 8192);
  const auto before = bench.sp;
  bench.run(d);
  CHECK(bench.done_pulses == 1);
  CHECK(bench.axi().idle());
  CHECK_FALSE(bench.top().busy);
  CHECK_FALSE(bench.top().error);
  auto want = expected_bursts(d, B::kBeatBytes);
  REQUIRE(bench.ar.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("burst " << i);
    CHECK(bench.ar[i].addr == want[i].addr);
    CHECK(bench.ar[i].beats == want[i].beats);
    CHECK(bench.ar[i].id < B::kMaxOutstanding);
  }
  CHECK(bench.max_reads_in_flight <= B::kMaxOutstanding);
  CHECK(bench.aw.empty());
  check_load(bench, before, d);
}

}  // namespace

TEST_CASE("dma load: one row of one beat lands in bank 0 of its scratchpad row") {
  load_and_check<Bench256>({.addr = 0x1000, .stride = 32, .rows = 1, .row_bytes = 32, .sp_row = 5});
  load_and_check<Bench64>({.addr = 0x2000, .stride = 8, .rows = 1, .row_bytes = 8, .sp_row = 3});
}

TEST_CASE("dma load: rows not a multiple of the beat leave the rest of the scratchpad row untouched") {
  load_and_check<Bench256>({.addr = 0x10000, .stride = 256, .rows = 7, .row_bytes = 77, .sp_row = 10});
  load_and_check<Bench256>({.addr = 0x10000, .stride = 128, .rows = 3, .row_bytes = 1, .sp_row = 0});
  load_and_check<Bench256>({.addr = 0x10020, .stride = 96, .rows = 5, .row_bytes = 127, .sp_row = 250});  // wraps
  load_and_check<Bench64>({.addr = 0x8000, .stride = 64, .rows = 9, .row_bytes = 61, .sp_row = 2});
}

TEST_CASE("dma load: rows crossing 4 KiB become two bursts that meet at the boundary") {
  // 128-byte rows at stride 4096+32*k: the rows start at 0xfa0, so each crosses.
  const DmaDesc d{.addr = 0xfa0, .stride = 4096, .rows = 4, .row_bytes = 128, .sp_row = 0};
  load_and_check<Bench256>(d);
  const auto want = expected_bursts(d, 32);
  REQUIRE(want.size() == 8);
  CHECK(want[0].addr == 0xfa0);
  CHECK(want[0].beats == 3);
  CHECK(want[1].addr == 0x1000);
  CHECK(want[1].beats == 1);
}

TEST_CASE("dma load: 4 KiB rows on a 64-bit bus are cut at 256 beats and at 4 KiB") {
  // From 0x400: 256 beats (2 KiB), then 128 beats to 0x1000, then 128 beats.
  const DmaDesc d{.addr = 0x400, .stride = 8192, .rows = 3, .row_bytes = 4096, .sp_row = 1};
  const auto want = expected_bursts(d, 8);
  REQUIRE(want.size() == 9);
  CHECK(want[0].beats == 256);
  CHECK(want[1].beats == 128);
  CHECK(want[2].beats == 128);
  load_and_check<Bench64>(d);
  load_and_check<Bench64>({.addr = 0x4000, .stride = 4096, .rows = 2, .row_bytes = 4093, .sp_row = 15});
}

TEST_CASE("dma load: many rows reuse IDs without exceeding the outstanding limit") {
  load_and_check<Bench256>({.addr = 0x40000, .stride = 128, .rows = 200, .row_bytes = 128, .sp_row = 0});
  load_and_check<Bench64>({.addr = 0x40000, .stride = 64, .rows = 16, .row_bytes = 40, .sp_row = 0});
}

TEST_CASE("dma load: the outstanding limit is reached when memory is slow") {
  DmaBenchOptions slow;
  slow.mem_latency = 300 * kPsPerNs;
  Bench256 bench(slow);
  bench.fill_patterns(0, 65536);
  bench.run({.addr = 0, .stride = 32, .rows = 64, .row_bytes = 32, .sp_row = 0});
  CHECK(bench.max_reads_in_flight == 16);
  Bench64 narrow(slow);
  narrow.run({.addr = 0, .stride = 8, .rows = 16, .row_bytes = 8, .sp_row = 0});
  CHECK(narrow.max_reads_in_flight == 4);
}

TEST_CASE("dma load under random backpressure on every channel with several seeds") {
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    INFO("seed " << seed);
    DmaBenchOptions opt;
    opt.seed = seed;
    opt.request_bytes = seed % 2 ? 32 : 0;  // per beat, or per burst
    opt.backpressure = {.arready_low = 0.3, .awready_low = 0.3, .wready_low = 0.3, .rvalid_gap = 0.3,
                        .bvalid_gap = 0.3};
    opt.sp_wr_ready_low = 0.3;
    const DmaDesc d{.addr = 0xe00, .stride = 160, .rows = 40, .row_bytes = 100, .sp_row = 7};
    Bench256 bench(opt);
    bench.fill_patterns(0, 16384);
    const auto before = bench.sp;
    bench.run(d);
    CHECK(bench.done_pulses == 1);
    CHECK(bench.sp_write_stalls > 0);
    // Several IDs in flight with multi-beat bursts: beats of different IDs interleaved.
    CHECK(bench.axi().read_interleavings() > 0);
    CHECK(bench.max_reads_in_flight <= 16);
    CHECK(bench.ar.size() == expected_bursts(d, 32).size());
    check_load(bench, before, d);
  }
}
