// Pin-level tests of the verilated MXU core (4x4, 16 accumulator rows):
// pipe latency, weight double buffering, accumulate versus overwrite, bf16,
// and the ICI accumulate port; and of a 66x70 core, whose PE loops stay
// loops in the generated code (more than 64 iterations) and whose delay-line
// rings have lengths that are not powers of two.
#include <catch2/catch.hpp>

#include <verilated.h>

#include <cstring>
#include <memory>
#include <vector>

#include "Vmxu_core.h"
#include "Vmxu_core_wide.h"
#include "bridge/verilated_ports.h"
#include "bridge/verilator_seed.h"
#include "models/mxu/numerics.h"

using namespace mxc;

namespace {

template <class Model, int R, int C>
struct CoreOf {
  std::unique_ptr<VerilatedContext> ctx = std::make_unique<VerilatedContext>();
  std::unique_ptr<Model> m;
  CoreOf() {
    ctx->randReset(2);
    ctx->randSeed(11);
    m = std::make_unique<Model>(ctx.get());
    m->rst_n = 0;
    idle();
    for (int i = 0; i < R + C + 2; ++i) cycle();
    m->rst_n = 1;
  }
  void cycle() {
    m->clk = 1;
    m->eval();
    m->clk = 0;
    m->eval();
  }
  void idle() {
    m->w_valid = 0;
    m->in_valid = 0;
    m->rd_en = 0;
    m->ia_valid = 0;
  }
  static std::vector<std::uint8_t> lanes(const std::vector<std::uint16_t>& v) {
    std::vector<std::uint8_t> b(v.size() * 2);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  }
  // W is R x C lanes, row-major; row R-1 is shifted in first.
  void load(bool buf, const std::vector<std::uint16_t>& w) {
    for (int s = 0; s < R; ++s) {
      const int r = R - 1 - s;
      m->w_valid = 1;
      m->w_buf = buf;
      verilated::pack(m->w_data, lanes(std::vector<std::uint16_t>(w.begin() + r * C, w.begin() + (r + 1) * C)));
      cycle();
    }
    idle();
  }
  void vec(const std::vector<std::uint16_t>& x, bool sel, bool bf16, int addr, bool accumulate) {
    m->in_valid = 1;
    verilated::pack(m->in_data, lanes(x));
    m->in_sel = sel;
    m->in_bf16 = bf16;
    m->in_acc_addr = addr;
    m->in_accumulate = accumulate;
    cycle();
    idle();
  }
  std::vector<std::uint32_t> read(int addr) {
    m->rd_en = 1;
    m->rd_addr = addr;
    cycle();
    idle();
    std::vector<std::uint8_t> b(C * 4);
    verilated::unpack(m->rd_data, b);
    std::vector<std::uint32_t> out(C);
    std::memcpy(out.data(), b.data(), b.size());
    return out;
  }
  void drain() {
    for (int i = 0; i < 4 * (R + C) && (m->inflight0 || m->inflight1); ++i) cycle();
  }
};

constexpr int R = 4, C = 4;
using Core = CoreOf<Vmxu_core, R, C>;

std::vector<std::uint16_t> int8_lanes(std::initializer_list<int> v) {
  std::vector<std::uint16_t> out;
  for (int x : v) out.push_back(static_cast<std::uint8_t>(x));
  return out;
}

// y = x W for an int8 x (rows lanes) and W (rows x cols, row-major), int32 wrap.
std::vector<std::uint32_t> matvec_int8(const std::vector<std::uint16_t>& x, const std::vector<std::uint16_t>& w,
                                       int rows = R, int cols = C) {
  std::vector<std::uint32_t> y(cols, 0);
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r)
      y[c] += static_cast<std::uint32_t>(static_cast<std::int8_t>(x[r]) * static_cast<std::int8_t>(w[r * cols + c]));
  return y;
}

// The same for bf16: each column summed from row 0 down (docs/numerics.md).
std::vector<std::uint32_t> matvec_bf16(const std::vector<std::uint16_t>& x, const std::vector<std::uint16_t>& w,
                                       int rows, int cols) {
  std::vector<std::uint32_t> y(cols);
  std::vector<std::uint16_t> col(rows);
  for (int c = 0; c < cols; ++c) {
    for (int r = 0; r < rows; ++r) col[r] = w[r * cols + c];
    y[c] = bf16_dot_column(x, col);
  }
  return y;
}

std::vector<std::uint16_t> random_int8_weights(int salt) {
  std::vector<std::uint16_t> w(R * C);
  for (int i = 0; i < R * C; ++i) w[i] = static_cast<std::uint8_t>((i * 37 + salt * 11) % 256);
  return w;
}

}  // namespace

TEST_CASE("rtl core writes a vector's result exactly rows + cols edges after it enters") {
  Core core;
  const auto w = random_int8_weights(1);
  core.load(false, w);
  const auto x = int8_lanes({3, -1, 2, 7});
  core.vec(x, false, false, 5, false);
  CHECK(core.m->inflight0 == 1);
  int edges = 0;  // edges after the one that sampled the vector
  while (core.m->inflight0 != 0 && edges < 100) {
    core.cycle();
    ++edges;
  }
  CHECK(edges == R + C);
  CHECK(core.read(5) == matvec_int8(x, w));
}

TEST_CASE("rtl core loads one weight buffer while vectors on the other are in flight") {
  Core core;
  const auto w0 = random_int8_weights(2), w1 = random_int8_weights(3);
  core.load(false, w0);
  const auto x0 = int8_lanes({1, 2, 3, 4}), x1 = int8_lanes({-5, 6, -7, 8}), x2 = int8_lanes({9, 9, -9, -9});
  core.vec(x0, false, false, 0, false);
  core.vec(x1, false, false, 1, false);
  core.load(true, w1);  // overlaps x0 and x1 in the array
  core.vec(x2, true, false, 2, false);
  core.drain();
  CHECK(core.read(0) == matvec_int8(x0, w0));
  CHECK(core.read(1) == matvec_int8(x1, w0));
  CHECK(core.read(2) == matvec_int8(x2, w1));
}

TEST_CASE("rtl core accumulates back to back into one row, or overwrites it") {
  Core core;
  const auto w = random_int8_weights(4);
  core.load(false, w);
  const auto a = int8_lanes({-128, -128, -128, -128}), b = int8_lanes({1, 2, 3, 4});
  core.vec(a, false, false, 9, false);
  core.vec(b, false, false, 9, true);
  core.vec(b, false, false, 10, false);
  core.drain();
  const auto ya = matvec_int8(a, w), yb = matvec_int8(b, w);
  std::vector<std::uint32_t> sum(C);
  for (int c = 0; c < C; ++c) sum[c] = ya[c] + yb[c];
  CHECK(core.read(9) == sum);
  CHECK(core.read(10) == yb);
}

TEST_CASE("rtl core bf16 column sums match the documented order bit for bit") {
  Core core;
  // Values chosen so the order of rounding matters: 1 + 2^-8 + 2^-8 ... in fp32
  // is exact, but large and small terms mix across columns.
  std::vector<std::uint16_t> w(R * C), x = {0x3f80, 0x4b80, 0xcb80, 0x3f81};  // 1, 2^24, -2^24, 1.0078125
  for (int i = 0; i < R * C; ++i) w[i] = static_cast<std::uint16_t>(0x3f80 + 3 * i);
  core.load(true, w);
  core.vec(x, true, true, 3, false);
  core.vec(x, true, true, 3, true);
  core.drain();
  const auto got = core.read(3);
  for (int c = 0; c < C; ++c) {
    std::vector<std::uint16_t> col(R);
    for (int r = 0; r < R; ++r) col[r] = w[r * C + c];
    const std::uint32_t y = bf16_dot_column(x, col);
    CHECK(got[c] == fp32_add(y, y));
  }
}

TEST_CASE("rtl core adds an inbound row into the enabled accumulator elements only") {
  Core core;
  const auto w = random_int8_weights(5);
  core.load(false, w);
  const auto x = int8_lanes({1, 1, 1, 1});
  core.vec(x, false, false, 7, false);
  core.drain();
  const auto before = core.read(7);
  core.m->ia_valid = 1;
  core.m->ia_addr = 7;
  core.m->ia_bf16 = 0;
  core.m->ia_elem_en = 0b0101;
  std::vector<std::uint8_t> add(C * 4);
  const std::uint32_t addend[C] = {10, 20, 30, 40};
  std::memcpy(add.data(), addend, sizeof addend);
  verilated::pack(core.m->ia_data, add);
  CHECK(core.m->ia_ready);
  core.cycle();
  core.idle();
  const auto after = core.read(7);
  CHECK(after[0] == before[0] + 10);
  CHECK(after[1] == before[1]);
  CHECK(after[2] == before[2] + 30);
  CHECK(after[3] == before[3]);
}

TEST_CASE("rtl core 66x70: int8 and bf16 vectors on both weight buffers, exact latency and results") {
  constexpr int WR = 66, WC = 70;
  CoreOf<Vmxu_core_wide, WR, WC> core;
  std::uint32_t seed = 7;
  auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
  auto int8s = [&](int n) {
    std::vector<std::uint16_t> v(n);
    for (auto& e : v) e = static_cast<std::uint8_t>(next() >> 24);
    return v;
  };
  // Normal bf16 values in [2^-4, 2^4), either sign: sums round, nothing overflows.
  auto bf16s = [&](int n) {
    std::vector<std::uint16_t> v(n);
    for (auto& e : v) {
      const std::uint32_t r = next();
      e = static_cast<std::uint16_t>(((r >> 31) << 15) | ((123 + (r >> 16) % 8) << 7) | ((r >> 8) & 0x7f));
    }
    return v;
  };
  const auto w0 = int8s(WR * WC), w1 = bf16s(WR * WC);
  core.load(false, w0);
  const auto xa = int8s(WR);
  core.vec(xa, false, false, 0, false);
  int edges = 0;  // edges after the one that sampled the vector
  while (core.m->inflight0 != 0 && edges < 4 * (WR + WC)) {
    core.cycle();
    ++edges;
  }
  CHECK(edges == WR + WC);

  // Back to back: int8 on buffer 0 while buffer 1 loads bf16 weights, then
  // bf16 vectors on buffer 1, one accumulated onto the row before it.
  const auto xb = int8s(WR), xc = int8s(WR), xd = bf16s(WR), xe = bf16s(WR);
  core.vec(xb, false, false, 1, false);
  core.vec(xc, false, false, 2, false);
  core.load(true, w1);
  core.vec(xd, true, true, 3, false);
  core.vec(xe, true, true, 3, true);
  core.drain();
  CHECK(core.read(0) == matvec_int8(xa, w0, WR, WC));
  CHECK(core.read(1) == matvec_int8(xb, w0, WR, WC));
  CHECK(core.read(2) == matvec_int8(xc, w0, WR, WC));
  const auto yd = matvec_bf16(xd, w1, WR, WC), ye = matvec_bf16(xe, w1, WR, WC);
  std::vector<std::uint32_t> sum(WC);
  for (int c = 0; c < WC; ++c) sum[c] = fp32_add(yd[c], ye[c]);
  CHECK(core.read(3) == sum);
}

TEST_CASE("a run seed gives the same randomised initial state to every model made from it", "[rtl]") {
  // The failure waveform re-runs the tile in the same process: its initial state must be the
  // failing run's. Run seed 0 once reached Verilator as 0, "seed from the host", and the second
  // model made in a process started from another state.
  for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{0x7fffffff}, ~std::uint64_t{0}}) {
    std::vector<std::uint32_t> first;
    for (int made = 0; made < 2; ++made) {
      auto ctx = std::make_unique<VerilatedContext>();
      ctx->randReset(2);
      ctx->randSeed(verilator_seed(seed));
      first.push_back(VL_RAND_RESET_I(32));
    }
    CHECK(first[0] == first[1]);
  }
}
