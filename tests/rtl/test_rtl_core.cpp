// Pin-level tests of the verilated core: latency, weight double buffering,
// accumulate versus overwrite.
#include <catch2/catch.hpp>

#include "bridge/rtl_core_factory.h"

using namespace mxc;

namespace {

struct Core {
  std::unique_ptr<RtlCorePort> p;
  explicit Core(std::uint32_t r, std::uint32_t c, std::uint64_t seed = 1) : p(make_rtl_core(r, c, seed)) {
    p->set_reset(true);
    idle();
    for (std::uint32_t i = 0; i < p->pipe_latency() + 2; ++i) p->cycle();
    p->set_reset(false);
  }
  void idle() {
    p->set_weights(false, false, {});
    p->set_input(false, {}, false, 0, false);
    p->set_read(false, 0);
  }
  // W is rows x cols row-major; row rows-1 is shifted in first.
  void load(bool buf, const std::vector<std::int8_t>& w) {
    const auto R = p->rows(), C = p->cols();
    for (std::uint32_t s = 0; s < R; ++s) {
      const std::uint32_t r = R - 1 - s;
      p->set_weights(true, buf, std::span(w).subspan(std::size_t{r} * C, C));
      p->cycle();
    }
    idle();
  }
  std::vector<std::int32_t> read(std::uint32_t addr) {
    p->set_read(true, addr);
    p->cycle();
    idle();
    std::vector<std::int32_t> out(p->cols());
    p->read_data(out);
    return out;
  }
  void drain() {
    for (int i = 0; i < 1000 && (p->inflight(0) || p->inflight(1)); ++i) p->cycle();
  }
};

std::vector<std::int32_t> matvec(const std::vector<std::int8_t>& x, const std::vector<std::int8_t>& w,
                                 std::uint32_t R, std::uint32_t C) {
  std::vector<std::int32_t> y(C, 0);
  for (std::uint32_t c = 0; c < C; ++c)
    for (std::uint32_t r = 0; r < R; ++r) y[c] += std::int32_t{x[r]} * w[std::size_t{r} * C + c];
  return y;
}

}  // namespace

TEST_CASE("rtl core writes a vector's result exactly rows + cols edges after it enters") {
  Core core(4, 4);
  std::vector<std::int8_t> w(16);
  for (int i = 0; i < 16; ++i) w[i] = static_cast<std::int8_t>(i - 5);
  core.load(false, w);
  const std::vector<std::int8_t> x{3, -1, 2, 7};
  core.p->set_input(true, x, false, 5, false);
  core.p->cycle();
  core.idle();
  CHECK(core.p->inflight(0) == 1);
  std::uint32_t edges = 0;  // edges after the one that sampled the vector
  while (core.p->inflight(0) != 0 && edges < 100) {
    core.p->cycle();
    ++edges;
  }
  CHECK(edges == core.p->pipe_latency());
  CHECK(edges == 4 + 4);  // rows + cols, as documented in mxu_core.sv
  CHECK(core.read(5) == matvec(x, w, 4, 4));
}

TEST_CASE("rtl core loads one weight buffer while vectors on the other are in flight") {
  Core core(4, 4);
  std::vector<std::int8_t> w0(16), w1(16);
  for (int i = 0; i < 16; ++i) {
    w0[i] = static_cast<std::int8_t>(3 * i - 20);
    w1[i] = static_cast<std::int8_t>(100 - 7 * i);
  }
  core.load(false, w0);
  const std::vector<std::int8_t> x0{1, 2, 3, 4}, x1{-5, 6, -7, 8}, x2{9, 9, -9, -9};
  // Vectors on buffer 0 enter; the load of buffer 1 starts the next cycle and
  // overlaps them; then a vector on buffer 1 follows with no bubble.
  core.p->set_input(true, x0, false, 0, false);
  core.p->cycle();
  core.p->set_input(true, x1, false, 1, false);
  core.p->cycle();
  core.idle();
  core.load(true, w1);
  core.p->set_input(true, x2, true, 2, false);
  core.p->cycle();
  core.idle();
  core.drain();
  CHECK(core.read(0) == matvec(x0, w0, 4, 4));
  CHECK(core.read(1) == matvec(x1, w0, 4, 4));
  CHECK(core.read(2) == matvec(x2, w1, 4, 4));
}

TEST_CASE("rtl core accumulates into a row or overwrites it") {
  Core core(8, 8);
  std::vector<std::int8_t> w(64);
  for (int i = 0; i < 64; ++i) w[i] = static_cast<std::int8_t>((i * 37) % 256 - 128);
  core.load(false, w);
  const std::vector<std::int8_t> a{-128, -128, -128, -128, -128, -128, -128, -128};
  const std::vector<std::int8_t> b{1, 2, 3, 4, 5, 6, 7, 8};
  core.p->set_input(true, a, false, 9, false);
  core.p->cycle();
  core.p->set_input(true, b, false, 9, true);  // back-to-back into the same row
  core.p->cycle();
  core.p->set_input(true, b, false, 10, false);
  core.p->cycle();
  core.idle();
  core.drain();
  const auto ya = matvec(a, w, 8, 8), yb = matvec(b, w, 8, 8);
  std::vector<std::int32_t> sum(8);
  for (int c = 0; c < 8; ++c) sum[c] = ya[c] + yb[c];
  CHECK(core.read(9) == sum);
  CHECK(core.read(10) == yb);
}

TEST_CASE("rtl core factory names the available sizes for one it lacks") {
  CHECK_THROWS_WITH(make_rtl_core(3, 5, 1), Catch::Contains("no RTL of a 3x5 array") && Catch::Contains("4x4"));
}
