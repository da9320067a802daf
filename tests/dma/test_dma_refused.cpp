// Descriptors outside the DMA's preconditions (docs/dma.md): an address or
// stride not a multiple of the beat, rows of 0 bytes. The instruction checks
// keep them out of programs; the hardware must still neither hang nor put an
// illegal (or unaligned) burst on the bus. The bench's AXI slave throws on
// any such burst, so a run that returns saw none.
#include <catch2/catch.hpp>

#include "tests/dma/dma_configs.h"

using namespace mxc;
using namespace mxc::test;

namespace {

/// Runs `d` on a fresh bench: it is refused (error set, done in cycle 1, no burst, nothing written), and a
/// good descriptor after it still moves its data.
template <class B>
void check_refused(const DmaDesc& d) {
  INFO((d.store ? "store" : "load") << " addr 0x" << std::hex << d.addr << " stride 0x" << d.stride << std::dec
                                    << ", " << d.rows << " rows of " << d.row_bytes << " bytes");
  B bench;
  bench.fill_patterns(0x10000, 8192);
  const auto sp_before = bench.sp;
  CHECK_FALSE(bench.top().error);
  // Accepted at edge 0, done in cycle 1, as a descriptor of 0 rows.
  CHECK(bench.run(d) == 1);
  CHECK(bench.done_pulses == 1);
  CHECK(bench.ar.empty());
  CHECK(bench.aw.empty());
  CHECK(bench.data_beats.empty());
  CHECK(bench.sp_writes == 0);
  CHECK(bench.sp == sp_before);
  CHECK(bench.axi().idle());
  CHECK_FALSE(bench.top().busy);
  CHECK(bench.top().error);

  const std::uint32_t beat = B::kBeatBytes;
  const DmaDesc good{.addr = 0x10000, .stride = 2 * beat, .rows = 3, .row_bytes = beat, .sp_row = 2};
  bench.run(good);
  CHECK(bench.done_pulses == 1);
  const auto want = expected_bursts(good, beat);
  REQUIRE(bench.ar.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(bench.ar[i].addr == want[i].addr);
    CHECK(bench.ar[i].beats == want[i].beats);
  }
  std::vector<std::uint8_t> row(beat);
  for (std::uint32_t r = 0; r < good.rows; ++r) {
    bench.mem().backdoor_read(good.addr + std::uint64_t{r} * good.stride, row);
    const auto got = bench.sp_row(good.sp_row + r);
    CHECK(std::vector<std::uint8_t>(got.begin(), got.begin() + beat) == row);
  }
  CHECK(bench.top().error);  // sticky until reset
}

}  // namespace

TEST_CASE("dma: an address inside the last beat before 4 KiB is refused with the error flag") {
  for (const bool store : {false, true}) {
    check_refused<Bench256>({.store = store, .addr = 0x1ff0, .stride = 4096, .rows = 3, .row_bytes = 64});
    check_refused<Bench64>({.store = store, .addr = 0x1ffc, .stride = 8, .rows = 2, .row_bytes = 8});
  }
}

TEST_CASE("dma: an address or stride off the beat is refused with the error flag") {
  for (const bool store : {false, true}) {
    check_refused<Bench256>({.store = store, .addr = 0x1001, .stride = 32, .rows = 2, .row_bytes = 32});
    check_refused<Bench256>({.store = store, .addr = 0x1000, .stride = 48, .rows = 2, .row_bytes = 32});
    check_refused<Bench64>({.store = store, .addr = 0x2000, .stride = 4, .rows = 3, .row_bytes = 8});
  }
}

TEST_CASE("dma: rows of 0 bytes are refused with the error flag") {
  // Once a single 256-beat burst crossing 4 KiB.
  for (const bool store : {false, true}) {
    check_refused<Bench256>({.store = store, .addr = 0x1000, .stride = 32, .rows = 1, .row_bytes = 0});
    check_refused<Bench64>({.store = store, .addr = 0x3000, .stride = 8, .rows = 5, .row_bytes = 0});
  }
}
