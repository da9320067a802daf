#include <catch2/catch.hpp>

#include "models/mxu/functional_tile.h"
#include "models/mxu/gemm_program.h"
#include "models/mxu/numerics.h"
#include "models/mxu/reference_gemm.h"

using namespace mxc;

namespace {

std::vector<std::uint32_t> run_compiled(const GemmShape& s, const TileGeometry& g, const GemmOperands& ops) {
  const GemmLayout l = place_gemm(s, g);
  SparseMemory mem;
  store_operands(s, l, ops, mem);
  FunctionalTile(g, mem).run(compile_gemm(s, l, g));
  return load_result(s, l, mem);
}

/// The bf16 GEMM as the array computes it, written out independently: per
/// fold of `rows` K-values, each column sums from +0 over all array rows (zero
/// padding past K), and folds accumulate into C in order.
std::vector<std::uint32_t> bf16_folded_gemm(const GemmShape& s, const GemmOperands& ops, std::uint32_t rows) {
  std::vector<std::uint32_t> c(std::size_t{s.m} * s.n, 0);
  for (std::uint32_t i = 0; i < s.m; ++i)
    for (std::uint32_t j = 0; j < s.n; ++j)
      for (std::uint32_t k0 = 0; k0 < s.k; k0 += rows) {
        std::uint32_t col = 0;  // +0.0
        for (std::uint32_t r = 0; r < rows; ++r) {
          const std::uint32_t k = k0 + r;
          const std::uint16_t x = k < s.k ? ops.a[std::size_t{i} * s.k + k] : 0;
          const std::uint16_t w = k < s.k ? ops.b[std::size_t{k} * s.n + j] : 0;
          col = fp32_add(col, bf16_mul(x, w));
        }
        auto& acc = c[std::size_t{i} * s.n + j];
        acc = k0 == 0 ? col : fp32_add(acc, col);
      }
  return c;
}

}  // namespace

TEST_CASE("gemm program computes the int8 reference for shapes that are not array multiples") {
  TileGeometry g;
  g.rows = 4;
  g.cols = 4;
  g.acc_rows = 8;
  g.sp_rows = 64;
  for (const GemmShape s : {GemmShape{1, 1, 1}, GemmShape{16, 16, 16}, GemmShape{5, 7, 3}, GemmShape{17, 9, 13},
                            GemmShape{40, 4, 4}}) {
    const auto ops = random_gemm_operands(s, 3);
    std::vector<std::int8_t> a(ops.a.begin(), ops.a.end()), b(ops.b.begin(), ops.b.end());
    const auto want = reference_gemm_int8(a, b, s.m, s.k, s.n);
    const auto got = run_compiled(s, g, ops);
    INFO("m=" << s.m << " k=" << s.k << " n=" << s.n);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(static_cast<std::int32_t>(got[i]) == want[i]);
  }
}

TEST_CASE("gemm program computes the folded bf16 result bit for bit") {
  TileGeometry g;
  g.rows = 4;
  g.cols = 8;
  g.acc_rows = 16;
  g.sp_rows = 128;
  for (const GemmShape s : {GemmShape{3, 5, 9, DType::kBf16}, GemmShape{20, 13, 8, DType::kBf16}}) {
    const auto ops = random_gemm_operands(s, 9);
    CHECK(run_compiled(s, g, ops) == bf16_folded_gemm(s, ops, g.rows));
  }
}

TEST_CASE("gemm operands are a pure function of the seed, bf16 operands are normal numbers") {
  GemmShape s{3, 5, 7, DType::kBf16};
  CHECK(random_gemm_operands(s, 11).a == random_gemm_operands(s, 11).a);
  CHECK(random_gemm_operands(s, 11).a != random_gemm_operands(s, 12).a);
  for (std::uint16_t v : random_gemm_operands(s, 11).b) {
    const unsigned exponent = (v >> 7) & 0xff;
    CHECK(exponent >= 119);
    CHECK(exponent < 135);
  }
}

TEST_CASE("gemm placement: blocks of beat-aligned rows, 4 KiB aligned matrices") {
  TileGeometry g;  // 4x4, 32-byte beats
  const GemmShape s{10, 9, 6};
  const GemmLayout l = place_gemm(s, g);
  CHECK(l.a.base % 4096 == 0);
  CHECK(l.b.base % 4096 == 0);
  CHECK(l.c.base % 4096 == 0);
  CHECK(l.a.row_pitch() == 32);                    // 4 int8 padded to one beat
  CHECK(l.a.addr(2, 5) == l.a.base + 1 * 10 * 32 + 2 * 32 + 1);  // block 1, row 2, column 1
  CHECK(l.c.row_pitch() == 32);                    // 4 int32
  CHECK(l.b.base >= l.a.base + l.a.bytes());
  CHECK(l.c.base >= l.b.base + l.b.bytes());
}

TEST_CASE("gemm shape validation names the bad field") {
  CHECK_THROWS_WITH(validate(GemmShape{0, 1, 1}), Catch::Contains("m must be"));
  CHECK_THROWS_WITH(validate(GemmShape{1, 0, 1}), Catch::Contains("k must be"));
  CHECK_THROWS_WITH(validate(GemmShape{1, 1, 0}), Catch::Contains("n must be"));
}

TEST_CASE("a gemm whose program would pass the fold limit is refused before it is made") {
  TileGeometry g;  // 4x4, 256 accumulator rows, 1024 scratchpad rows: 256 rows of A per fold
  // ceil(m / 256) x ceil(n / 4) x ceil(k / 4) folds: 4 x 1024 x 1024 = 2^22 fits, one more M block does not.
  CHECK_NOTHROW(validate(GemmShape{1024, 4096, 4096}, g));
  CHECK_THROWS_WITH(validate(GemmShape{1025, 4096, 4096}, g),
                    "gemm: 1025 x 4096 x 4096 on a 4x4 array is 5242880 folds; a program holds at most 4194304 (a "
                    "larger array or a smaller GEMM)");
  CHECK_THROWS_WITH(compile_gemm(GemmShape{65536, 65536, 65536}, place_gemm(GemmShape{65536, 65536, 65536}, g), g),
                    Catch::Contains("68719476736 folds"));
}
