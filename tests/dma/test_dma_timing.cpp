// Cycle timing of the DMA as docs/dma.md specifies it, with no backpressure
// and an IdealMemory of latency L = 40 tile cycles (one request per burst).
// Cycle 0 is the cycle desc_valid is first high (the engine idle).
#include <catch2/catch.hpp>

#include "tests/dma/dma_configs.h"

using namespace mxc;
using namespace mxc::test;

namespace {
constexpr std::uint64_t kL = 40;  // memory latency in tile cycles (40 ns at 1 GHz)
}

TEST_CASE("dma timing: a one-beat load issues AR in cycle 2 and pulses done 2 cycles after the R beat") {
  Bench256 bench;
  const std::uint64_t done = bench.run({.addr = 0x1000, .stride = 32, .rows = 1, .row_bytes = 32, .sp_row = 0});
  REQUIRE(bench.ax_cycles == std::vector<std::uint64_t>{2});
  // The request leaves at edge 2; its data is offered at the first edge >= 2 + L.
  REQUIRE(bench.data_beats == std::vector<std::uint64_t>{2 + kL});
  CHECK(done == 2 + kL + 2);
  // Waiting for data: cycles 2 .. 2 + L - 1 (its ID is in use from cycle 2,
  // the AR's own cycle, until the beat).
  CHECK(bench.stall_mem_cycles == kL);
  CHECK_FALSE(bench.top().error);
}

TEST_CASE("dma timing: loads issue one AR per cycle and stream R at one beat per cycle") {
  // 8 rows of 4 beats: AR k in cycle 2 + k; 32 beats back to back from 2 + L.
  Bench256 bench;
  const std::uint64_t done = bench.run({.addr = 0x0, .stride = 4096, .rows = 8, .row_bytes = 128, .sp_row = 0});
  std::vector<std::uint64_t> want_ar, want_r;
  for (std::uint64_t k = 0; k < 8; ++k) want_ar.push_back(2 + k);
  for (std::uint64_t j = 0; j < 32; ++j) want_r.push_back(2 + kL + j);
  CHECK(bench.ax_cycles == want_ar);
  CHECK(bench.data_beats == want_r);
  CHECK(done == 2 + kL + 31 + 2);
}

TEST_CASE("dma timing: a one-beat store offers W in cycle 5 and pulses done the cycle after B") {
  Bench256 bench;
  const std::uint64_t done =
      bench.run({.store = true, .addr = 0x1000, .stride = 32, .rows = 1, .row_bytes = 32, .sp_row = 0});
  REQUIRE(bench.ax_cycles == std::vector<std::uint64_t>{2});
  REQUIRE(bench.data_beats == std::vector<std::uint64_t>{5});
  // The write leaves with WLAST at edge 5; B is taken at edge 5 + L.
  CHECK(done == 5 + kL + 1);
  // Waiting for B: cycles 6 .. 5 + L (the B cycle included, its ID still in use).
  CHECK(bench.stall_mem_cycles == kL);
}

TEST_CASE("dma timing: stores stream W at one beat per cycle across bursts") {
  // 8 rows of 4 beats: W beat j in cycle 5 + j; the last B at edge 5 + 31 + L.
  Bench256 bench;
  const std::uint64_t done =
      bench.run({.store = true, .addr = 0x0, .stride = 256, .rows = 8, .row_bytes = 128, .sp_row = 0});
  std::vector<std::uint64_t> want_aw, want_w;
  for (std::uint64_t k = 0; k < 8; ++k) want_aw.push_back(2 + k);
  for (std::uint64_t j = 0; j < 32; ++j) want_w.push_back(5 + j);
  CHECK(bench.ax_cycles == want_aw);
  CHECK(bench.data_beats == want_w);
  CHECK(done == 5 + 31 + kL + 1);
}

TEST_CASE("dma timing: the 17th read waits for the first ID to be freed by its last R beat") {
  // 17 one-beat rows on 16 IDs: ID 0's R beat at edge 2 + L frees it; the
  // 17th AR is loaded in the next cycle and offered in the one after.
  Bench256 bench;
  bench.run({.addr = 0x0, .stride = 32, .rows = 17, .row_bytes = 32, .sp_row = 0});
  REQUIRE(bench.ax_cycles.size() == 17);
  CHECK(bench.ax_cycles[15] == 17);
  CHECK(bench.ax_cycles[16] == 2 + kL + 2);
  CHECK(bench.ar[16].id == 0);
}

TEST_CASE("dma timing: long transfers keep the data channel busy every cycle") {
  // 16 IDs x 4 beats = 64 beats in flight cover an ID's round trip (AR, L,
  // 4 beats, 2 cycles to free and reissue), so once data flows there is a
  // beat in every cycle. Oldest-first responses: random interleaving delays
  // the completion of bursts, hence the freeing of IDs.
  DmaBenchOptions oldest;
  oldest.random_interleave = false;
  Bench256 load(oldest);
  load.run({.addr = 0x0, .stride = 128, .rows = 200, .row_bytes = 128, .sp_row = 0});
  REQUIRE(load.data_beats.size() == 800);
  CHECK(load.data_beats.front() == 2 + kL);
  CHECK(load.data_beats.back() == 2 + kL + 799);
  Bench256 store(oldest);
  store.run({.store = true, .addr = 0x0, .stride = 128, .rows = 200, .row_bytes = 128, .sp_row = 0});
  REQUIRE(store.data_beats.size() == 800);
  CHECK(store.data_beats.front() == 5);
  CHECK(store.data_beats.back() == 5 + 799);
}

TEST_CASE("dma timing: one-beat reads are bound by 16 IDs per round trip of L + 2 cycles") {
  // ID i's beat at edge 2 + L + i frees it; it is reissued 2 cycles later and
  // its next beat comes L cycles after that: 16 beats per L + 2 cycles.
  DmaBenchOptions oldest;
  oldest.random_interleave = false;
  Bench256 bench(oldest);
  bench.run({.addr = 0x0, .stride = 32, .rows = 64, .row_bytes = 32, .sp_row = 0});
  REQUIRE(bench.data_beats.size() == 64);
  for (std::uint64_t j = 0; j < 64; ++j) {
    INFO("beat " << j);
    CHECK(bench.data_beats[j] == 2 + kL + (j / 16) * (kL + 2) + j % 16);
  }
}
