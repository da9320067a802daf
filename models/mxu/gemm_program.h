#pragma once
// GEMM workload: operands, their placement in memory, and the tile program
// that computes C = A x B on a weight-stationary array.
#include <cstdint>
#include <vector>

#include "models/mxu/instr.h"

namespace mxc {

struct GemmShape {
  std::uint32_t m = 0, k = 0, n = 0;
};

/// Where the row-major operands live: A (m x k int8), B (k x n int8),
/// C (m x n int32, little-endian).
struct GemmLayout {
  std::uint64_t a_addr = 0, b_addr = 0, c_addr = 0;
};

/// The array the program is compiled for.
struct ArrayShape {
  std::uint32_t rows = 0, cols = 0, acc_rows = 0;
};

struct GemmOperands {
  std::vector<std::int8_t> a, b;
};

/// A, B, C one after another, each starting on a 4 KiB boundary.
GemmLayout place_gemm(const GemmShape& shape, std::uint64_t base = 0x1000'0000);

/// Uniform int8 operands drawn from a generator seeded with `seed`.
GemmOperands random_gemm_operands(const GemmShape& shape, std::uint64_t seed);

/// Tiling: for each block of up to acc_rows rows of A and each column tile of
/// up to `cols` columns of B, the K dimension is folded in steps of `rows`:
/// load_weights, matmul (accumulating after the first fold), then one store.
/// Folds alternate weight buffers so a load overlaps the previous drain.
Program compile_gemm(const GemmShape& shape, const GemmLayout& layout, const ArrayShape& array);

/// Throws std::invalid_argument naming the offending field.
void validate(const GemmShape& shape);
void validate(const ArrayShape& array);

}  // namespace mxc
