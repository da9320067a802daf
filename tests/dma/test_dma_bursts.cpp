// The DMA's burst walker (rtl/mxu_dma_bursts.sv) verilated alone, 32-byte
// beats: whatever descriptor it is given, each burst it offers must be legal
// AXI4 (1 to 256 beats, its bytes inside one 4 KiB page, counted from its
// start address rounded down to the beat) and the walk must end, every beat
// of every row offered once. mxu_dma refuses the descriptors outside its
// preconditions before they reach the walker; these drive it directly.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <verilated.h>

#include "Vmxu_dma_bursts_test.h"
#include "tests/dma/dma_bench.h"

using namespace mxc;
using namespace mxc::test;

namespace {

constexpr std::uint32_t kBeat = 32;

struct WalkDesc {
  std::uint64_t addr = 0;
  std::uint32_t stride = 0;
  std::uint32_t rows = 1;
  std::uint32_t row_beats = 1;
};

struct Walk {
  std::vector<BurstSeen> bursts;
  bool ended = false;         ///< valid fell within the limit.
  bool valid_at_start = false;  ///< valid in the cycle after the descriptor was loaded.
};

class Walker {
 public:
  Walker() : m_ctx(std::make_unique<VerilatedContext>()) {
    m_ctx->randReset(2);
    m_top = std::make_unique<Vmxu_dma_bursts_test>(m_ctx.get(), "walker");
    m_top->rst_n = 0;
    m_top->start = 0;
    m_top->next = 0;
    for (int i = 0; i < 3; ++i) clock();
    m_top->rst_n = 1;
  }
  ~Walker() { m_top->final(); }

  /// Loads `d`, then takes each burst (`next` high with probability `take`, from `rng`) until
  /// valid falls or `limit` cycles pass.
  Walk run(const WalkDesc& d, std::mt19937_64& rng, double take = 1.0, std::uint64_t limit = 200'000) {
    Walk w;
    m_top->addr = d.addr;
    m_top->stride = d.stride;
    m_top->rows = static_cast<std::uint16_t>(d.rows);
    m_top->row_beats = d.row_beats;
    m_top->sp_row = 0;
    m_top->start = 1;
    clock();
    m_top->start = 0;
    std::bernoulli_distribution coin(take);
    for (std::uint64_t n = 0; n < limit; ++n) {
      m_top->next = coin(rng);
      m_top->clk = 0;
      m_top->eval();
      if (n == 0) w.valid_at_start = m_top->valid;
      if (!m_top->valid) {
        w.ended = true;
        return w;
      }
      if (m_top->next) w.bursts.push_back({m_top->b_addr, std::uint32_t{m_top->b_len} + 1, 0});
      m_top->clk = 1;
      m_top->eval();
    }
    return w;
  }

 private:
  void clock() {
    m_top->clk = 0;
    m_top->eval();
    m_top->clk = 1;
    m_top->eval();
  }
  std::unique_ptr<VerilatedContext> m_ctx;
  std::unique_ptr<Vmxu_dma_bursts_test> m_top;
};

/// Every burst legal, the walk ended, and rows x row_beats beats offered in all.
void check_legal(const WalkDesc& d, const Walk& w) {
  INFO("addr 0x" << std::hex << d.addr << " stride 0x" << d.stride << std::dec << ", " << d.rows << " rows of "
                 << d.row_beats << " beats");
  REQUIRE(w.ended);
  std::uint64_t beats = 0;
  for (std::size_t i = 0; i < w.bursts.size(); ++i) {
    const BurstSeen& b = w.bursts[i];
    INFO("burst " << i << " at 0x" << std::hex << b.addr << std::dec << ", " << b.beats << " beats");
    REQUIRE(b.beats >= 1);
    REQUIRE(b.beats <= 256);
    const std::uint64_t first_beat = b.addr & ~std::uint64_t{kBeat - 1};
    REQUIRE(first_beat % 4096 + std::uint64_t{b.beats} * kBeat <= 4096);
    beats += b.beats;
  }
  CHECK(beats == std::uint64_t{d.rows} * d.row_beats);
}

}  // namespace

TEST_CASE("dma burst walker: an address in the last beat of a 4 KiB page gives a one-beat burst there") {
  // At 0x1ff0 the bytes left to the boundary (16) are under a beat: the walker once offered
  // AWLEN 255 there for ever, each burst crossing 4 KiB.
  Walker walker;
  std::mt19937_64 rng(1);
  const WalkDesc d{.addr = 0x1ff0, .stride = 0x1000, .rows = 3, .row_beats = 4};
  const Walk w = walker.run(d, rng);
  check_legal(d, w);
  const std::vector<BurstSeen> want = {{0x1ff0, 1, 0}, {0x2010, 3, 0}, {0x2ff0, 1, 0},
                                       {0x3010, 3, 0}, {0x3ff0, 1, 0}, {0x4010, 3, 0}};
  CHECK(w.bursts == want);
}

TEST_CASE("dma burst walker: rows of 0 beats offer no burst and the descriptor ends at once") {
  Walker walker;
  std::mt19937_64 rng(2);
  for (const std::uint64_t addr : {std::uint64_t{0x1000}, std::uint64_t{0x1ff0}, std::uint64_t{0x2fe0}}) {
    const WalkDesc d{.addr = addr, .stride = 32, .rows = 7, .row_beats = 0};
    const Walk w = walker.run(d, rng);
    check_legal(d, w);
    CHECK_FALSE(w.valid_at_start);
    CHECK(w.bursts.empty());
  }
}

TEST_CASE("dma burst walker: aligned descriptors give the bursts the AXI rules ask for") {
  Walker walker;
  std::mt19937_64 rng(3);
  const std::vector<WalkDesc> descs = {{.addr = 0x10fc0, .stride = 4096 + 64, .rows = 3, .row_beats = 3},
                                       {.addr = 0x20000, .stride = 12288, .rows = 2, .row_beats = 282},
                                       {.addr = 0x30020, .stride = 32, .rows = 9, .row_beats = 1},
                                       {.addr = 0x40fe0, .stride = 4096, .rows = 2, .row_beats = 600}};
  for (const WalkDesc& d : descs) {
    const Walk w = walker.run(d, rng, 0.6);
    check_legal(d, w);
    const DmaDesc as_dma{.addr = d.addr, .stride = d.stride, .rows = d.rows, .row_bytes = d.row_beats * kBeat};
    CHECK(w.bursts == expected_bursts(as_dma, kBeat));
  }
}

TEST_CASE("dma burst walker: random descriptors at any byte address give legal bursts and end") {
  Walker walker;
  std::mt19937_64 rng(4);
  std::uniform_int_distribution<std::uint64_t> addr(0, (std::uint64_t{1} << 40) - 1);
  std::uniform_int_distribution<std::uint32_t> stride(0, 0xffffffffu), rows(1, 6), beats(0, 700), near(0, 63);
  for (int i = 0; i < 300; ++i) {
    WalkDesc d;
    // Half of them start within 64 bytes of a page's end.
    d.addr = i % 2 == 0 ? addr(rng) : ((addr(rng) | 0xfff) - near(rng));
    d.stride = i % 3 == 0 ? 4096 + near(rng) : stride(rng);
    d.rows = rows(rng);
    d.row_beats = i % 10 == 0 ? 0 : beats(rng);
    check_legal(d, walker.run(d, rng, 0.8));
  }
}
