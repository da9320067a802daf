// The RTL tile running whole GEMM programs, checked against the reference.
#include <catch2/catch.hpp>

#include "cosim/gemm_run.h"

using namespace mxc;

TEST_CASE("rtl tile gemm matches the reference across shapes, sizes and seeds") {
  struct Case {
    std::uint32_t rows, cols;
    GemmShape shape;
    std::uint64_t seed;
  };
  const Case cases[] = {
      {4, 4, {16, 16, 16}, 1},  {4, 4, {1, 1, 1}, 2},   {4, 4, {5, 7, 3}, 3},    {4, 4, {17, 9, 13}, 4},
      {8, 8, {16, 16, 16}, 5},  {8, 8, {11, 21, 19}, 6}, {8, 8, {3, 8, 8}, 7},   {8, 8, {300, 9, 5}, 8},
  };
  for (const Case& c : cases) {
    GemmRunOptions o;
    o.rows = c.rows;
    o.cols = c.cols;
    o.shape = c.shape;
    o.seed = c.seed;
    o.memory_latency_ps = 20'000;
    const GemmRunResult r = run_gemm_cosim(o);
    INFO(c.rows << "x" << c.cols << " array, gemm " << c.shape.m << "x" << c.shape.k << "x" << c.shape.n << " seed "
                << c.seed << ": " << r.error << (r.mismatches.empty() ? "" : to_string(r.mismatches[0])));
    CHECK(r.passed);
    CHECK(r.elements_checked == std::uint64_t{c.shape.m} * c.shape.n);
    CHECK(r.cycles > 0);
  }
}

TEST_CASE("a corrupted result element is reported as exactly one mismatch naming it") {
  GemmRunOptions o;
  o.shape = {6, 5, 7};
  o.inject_fault = 2 * 7 + 3;  // C[2][3]
  const GemmRunResult r = run_gemm_cosim(o);
  CHECK_FALSE(r.passed);
  REQUIRE(r.mismatch_count == 1);
  CHECK(r.mismatches[0].id.rfind("C[2][3]", 0) == 0);
  // The two values differ exactly in bit 0.
  CHECK((std::stoll(r.mismatches[0].expected) ^ std::stoll(r.mismatches[0].actual)) == 1);
}

TEST_CASE("same seed, same configuration: identical cycles; another seed: other data, same cycles") {
  GemmRunOptions o;
  o.shape = {9, 10, 11};
  o.seed = 42;
  const auto a = run_gemm_cosim(o), b = run_gemm_cosim(o);
  CHECK(a.passed);
  CHECK(a.cycles == b.cycles);
  o.seed = 43;
  const auto c = run_gemm_cosim(o);
  CHECK(c.passed);
  CHECK(c.cycles == a.cycles);  // timing does not depend on data values
}
