// DMA stores (scratchpad -> HBM). Memory is pre-filled with a pattern, so
// the checks see that WSTRB kept every byte past a row's end, and that
// nothing outside the rows was written.
#include <catch2/catch.hpp>

#include "tests/dma/dma_configs.h"

using namespace mxc;
using namespace mxc::test;

namespace {

/// Memory over [lo, hi) after a store: the pre-fill image, with row k's first
/// row_bytes bytes replaced by scratchpad row sp_row + k.
template <class B>
void check_store(B& bench, const DmaDesc& d, std::uint64_t lo, const std::vector<std::uint8_t>& before) {
  std::vector<std::uint8_t> want = before;
  for (std::uint32_t k = 0; k < d.rows; ++k) {
    const auto row = bench.sp_row((d.sp_row + k) % B::kRows);
    const std::uint64_t at = d.addr + std::uint64_t{k} * d.stride - lo;
    std::copy(row.begin(), row.begin() + d.row_bytes, want.begin() + static_cast<std::ptrdiff_t>(at));
  }
  std::vector<std::uint8_t> got(before.size());
  bench.mem().backdoor_read(lo, got);
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      FAIL("memory at 0x" << std::hex << lo + i << ": expected 0x" << int{want[i]} << ", got 0x" << int{got[i]});
    }
  }
}

template <class B>
void store_and_check(const DmaDesc& d, const DmaBenchOptions& opt = {}) {
  B bench(opt);
  const std::uint64_t lo = d.addr & ~std::uint64_t{4095};
  const std::size_t span = std::size_t{d.rows} * d.stride + 8192;
  bench.fill_patterns(lo, span);
  std::vector<std::uint8_t> before(span);
  bench.mem().backdoor_read(lo, before);
  const auto sp_before = bench.sp;
  bench.run(d);
  CHECK(bench.done_pulses == 1);
  CHECK(bench.axi().idle());
  CHECK_FALSE(bench.top().busy);
  CHECK_FALSE(bench.top().error);
  CHECK(bench.sp == sp_before);  // a store never writes the scratchpad
  CHECK(bench.ar.empty());
  const auto want = expected_bursts(d, B::kBeatBytes);
  REQUIRE(bench.aw.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("burst " << i);
    CHECK(bench.aw[i].addr == want[i].addr);
    CHECK(bench.aw[i].beats == want[i].beats);
    CHECK(bench.aw[i].id < B::kMaxOutstanding);
  }
  CHECK(bench.max_writes_in_flight <= B::kMaxOutstanding);
  check_store(bench, d, lo, before);
}

}  // namespace

TEST_CASE("dma store: one row of one beat") {
  store_and_check<Bench256>({.store = true, .addr = 0x3000, .stride = 32, .rows = 1, .row_bytes = 32, .sp_row = 9});
  store_and_check<Bench64>({.store = true, .addr = 0x3000, .stride = 8, .rows = 1, .row_bytes = 8, .sp_row = 4});
}

TEST_CASE("dma store: WSTRB protects the bytes past each row's end") {
  store_and_check<Bench256>({.store = true, .addr = 0x10000, .stride = 256, .rows = 6, .row_bytes = 77, .sp_row = 3});
  store_and_check<Bench256>({.store = true, .addr = 0x10000, .stride = 32, .rows = 9, .row_bytes = 1, .sp_row = 254});
  store_and_check<Bench64>({.store = true, .addr = 0x9000, .stride = 48, .rows = 11, .row_bytes = 45, .sp_row = 0});
}

TEST_CASE("dma store: rows crossing 4 KiB and the 256-beat limit") {
  store_and_check<Bench256>({.store = true, .addr = 0xfa0, .stride = 4096, .rows = 3, .row_bytes = 120, .sp_row = 0});
  store_and_check<Bench64>({.store = true, .addr = 0x400, .stride = 8192, .rows = 3, .row_bytes = 4096, .sp_row = 5});
  store_and_check<Bench64>({.store = true, .addr = 0x5008, .stride = 4096, .rows = 2, .row_bytes = 4001, .sp_row = 0});
}

TEST_CASE("dma store: many rows reuse IDs without exceeding the outstanding limit") {
  store_and_check<Bench256>({.store = true, .addr = 0x20000, .stride = 128, .rows = 300, .row_bytes = 100, .sp_row = 0});
  store_and_check<Bench64>({.store = true, .addr = 0x20000, .stride = 24, .rows = 40, .row_bytes = 17, .sp_row = 0});
}

TEST_CASE("dma store under random backpressure on every channel with several seeds") {
  for (std::uint64_t seed : {5, 6, 7, 8}) {
    INFO("seed " << seed);
    DmaBenchOptions opt;
    opt.seed = seed;
    opt.request_bytes = seed % 2 ? 32 : 0;
    opt.backpressure = {.arready_low = 0.3, .awready_low = 0.4, .wready_low = 0.5, .rvalid_gap = 0.3,
                        .bvalid_gap = 0.4};
    store_and_check<Bench256>({.store = true, .addr = 0xf00, .stride = 96, .rows = 50, .row_bytes = 90, .sp_row = 100},
                              opt);
  }
}

TEST_CASE("dma: a load after a store reads back what was stored with one done pulse each") {
  Bench256 bench;
  bench.fill_patterns(0x7000, 8192);
  const auto sp_before = bench.sp;
  bench.run({.store = true, .addr = 0x7000, .stride = 128, .rows = 8, .row_bytes = 128, .sp_row = 0});
  CHECK(bench.done_pulses == 1);
  bench.run({.store = false, .addr = 0x7000, .stride = 128, .rows = 8, .row_bytes = 128, .sp_row = 100});
  CHECK(bench.done_pulses == 1);
  for (std::uint32_t r = 0; r < 8; ++r) CHECK(bench.sp_row(100 + r) == std::vector<std::uint8_t>(
      sp_before.begin() + r * 128, sp_before.begin() + (r + 1) * 128));
}
