#include <catch2/catch.hpp>

#include <random>

#include "models/mxu/reference_gemm.h"

using mxc::reference_gemm_int8;

TEST_CASE("reference gemm matches a hand-computed 2x2x2 product") {
  const std::vector<std::int8_t> a{1, 2, 3, 4}, b{5, 6, 7, 8};
  CHECK(reference_gemm_int8(a, b, 2, 2, 2) == std::vector<std::int32_t>{19, 22, 43, 50});
}

TEST_CASE("reference gemm handles signs and a non-square shape") {
  // [1 -2 3] . [-4 5 -6]^T = -4 - 10 - 18; second column uses B's column [1 1 1].
  const std::vector<std::int8_t> a{1, -2, 3}, b{-4, 1, 5, 1, -6, 1};
  CHECK(reference_gemm_int8(a, b, 1, 3, 2) == std::vector<std::int32_t>{-32, 2});
}

TEST_CASE("reference gemm int8 extremes: -128 * -128 summed") {
  const std::vector<std::int8_t> a(4, -128), b(4, -128);
  CHECK(reference_gemm_int8(a, b, 1, 4, 1) == std::vector<std::int32_t>{4 * 16384});
  const std::vector<std::int8_t> c{127, -128}, d{-128, -128};
  CHECK(reference_gemm_int8(c, d, 1, 2, 1) == std::vector<std::int32_t>{127 * -128 + 16384});
}

TEST_CASE("reference gemm wraps modulo 2^32 like a 32-bit adder") {
  // 131072 products of 16384 sum to exactly 2^31, which wraps to -2^31.
  const std::size_t k = 131072;
  const std::vector<std::int8_t> a(k, -128), b(k, -128);
  CHECK(reference_gemm_int8(a, b, 1, k, 1)[0] == std::numeric_limits<std::int32_t>::min());
}

TEST_CASE("reference gemm agrees with 64-bit sums reduced modulo 2^32 on random shapes") {
  std::mt19937_64 gen(7);
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t m = 1 + gen() % 9, k = 1 + gen() % 33, n = 1 + gen() % 9;
    std::vector<std::int8_t> a(m * k), b(k * n);
    for (auto& v : a) v = static_cast<std::int8_t>(gen());
    for (auto& v : b) v = static_cast<std::int8_t>(gen());
    const auto c = reference_gemm_int8(a, b, m, k, n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        std::int64_t s = 0;
        for (std::size_t p = 0; p < k; ++p) s += std::int64_t{a[i * k + p]} * b[p * n + j];
        CHECK(c[i * n + j] == static_cast<std::int32_t>(static_cast<std::uint32_t>(s)));
      }
  }
}

TEST_CASE("reference gemm rejects operands whose size disagrees with the shape") {
  const std::vector<std::int8_t> a(6), b(6);
  CHECK_THROWS_AS(reference_gemm_int8(a, b, 2, 2, 3), std::invalid_argument);
}
