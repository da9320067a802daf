#include <catch2/catch.hpp>

#include <cstring>

#include "models/mxu/gemm_program.h"
#include "models/mxu/program_executor.h"
#include "models/mxu/reference_gemm.h"

using namespace mxc;

namespace {
std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) { return (a + b - 1) / b; }

std::vector<std::int32_t> run_compiled(const GemmShape& s, const ArrayShape& arr, std::uint64_t seed,
                                       const GemmOperands& ops) {
  (void)seed;
  const GemmLayout l = place_gemm(s);
  SparseMemory mem;
  mem.write(l.a_addr, {reinterpret_cast<const std::uint8_t*>(ops.a.data()), ops.a.size()});
  mem.write(l.b_addr, {reinterpret_cast<const std::uint8_t*>(ops.b.data()), ops.b.size()});
  ProgramExecutor(arr).run(compile_gemm(s, l, arr), mem);
  std::vector<std::int32_t> c(std::size_t{s.m} * s.n);
  const auto bytes = mem.read(l.c_addr, c.size() * 4);
  std::memcpy(c.data(), bytes.data(), bytes.size());
  return c;
}
}  // namespace

TEST_CASE("gemm program has one load and one matmul per fold and one store per output tile") {
  const GemmShape s{20, 10, 9};
  const ArrayShape arr{4, 4, 8};
  const Program p = compile_gemm(s, place_gemm(s), arr);
  const std::uint32_t folds = ceil_div(10, 4) * ceil_div(9, 4) * ceil_div(20, 8);
  const std::uint32_t stores = ceil_div(9, 4) * ceil_div(20, 8);
  CHECK(p.size() == 2 * folds + stores);
  std::size_t loads = 0, first_folds = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i].op == Opcode::kLoadWeights) ++loads;
    if (p[i].op == Opcode::kMatmul && !p[i].accumulate) ++first_folds;
    if (p[i].op == Opcode::kMatmul) CHECK(p[i].buf == p[i - 1].buf);  // uses what was just loaded
  }
  CHECK(loads == folds);
  CHECK(first_folds == stores);  // each output tile starts by overwriting
}

TEST_CASE("gemm program computes the reference result for shapes that are not array multiples") {
  const ArrayShape arr{4, 4, 8};
  for (const GemmShape s : {GemmShape{1, 1, 1}, GemmShape{16, 16, 16}, GemmShape{5, 7, 3}, GemmShape{17, 9, 13},
                            GemmShape{9, 4, 4}}) {
    const auto ops = random_gemm_operands(s, 3);
    INFO("m=" << s.m << " k=" << s.k << " n=" << s.n);
    CHECK(run_compiled(s, arr, 3, ops) == reference_gemm_int8(ops.a, ops.b, s.m, s.k, s.n));
  }
}

TEST_CASE("gemm operands are a pure function of the seed") {
  const GemmShape s{3, 5, 7};
  CHECK(random_gemm_operands(s, 11).a == random_gemm_operands(s, 11).a);
  CHECK(random_gemm_operands(s, 11).b == random_gemm_operands(s, 11).b);
  CHECK(random_gemm_operands(s, 11).a != random_gemm_operands(s, 12).a);
}

TEST_CASE("gemm placement keeps operands apart and 4 KiB aligned") {
  const GemmShape s{100, 50, 70};
  const GemmLayout l = place_gemm(s);
  CHECK(l.a_addr % 4096 == 0);
  CHECK(l.b_addr % 4096 == 0);
  CHECK(l.c_addr % 4096 == 0);
  CHECK(l.b_addr >= l.a_addr + 100 * 50);
  CHECK(l.c_addr >= l.b_addr + 50 * 70);
}

TEST_CASE("gemm shape and array validation name the bad field") {
  CHECK_THROWS_WITH(validate(GemmShape{0, 1, 1}), Catch::Contains("m must be"));
  CHECK_THROWS_WITH(validate(GemmShape{1, 0, 1}), Catch::Contains("k must be"));
  CHECK_THROWS_WITH(validate(ArrayShape{4, 0, 8}), Catch::Contains("cols must be"));
}
