#pragma once
// Bit-exact functional reference for int8 GEMM: C = A x B with int8 operands
// and int32 accumulation that wraps modulo 2^32 (the RTL's adder width).
#include <cstdint>
#include <span>
#include <vector>

namespace mxc {

/// A is m x k, B is k x n, both row-major; returns C, m x n row-major.
std::vector<std::int32_t> reference_gemm_int8(std::span<const std::int8_t> a, std::span<const std::int8_t> b,
                                              std::size_t m, std::size_t k, std::size_t n);

}  // namespace mxc
