#pragma once
// GEMM workload: operands, their placement in HBM, and the tile program that
// computes C = A x B on a weight-stationary array (docs/workloads.md).
#include <cstdint>
#include <vector>

#include "models/core/sparse_memory.h"
#include "models/mxu/instr.h"
#include "models/mxu/matrix_layout.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

struct GemmShape {
  std::uint32_t m = 0, k = 0, n = 0;
  DType dtype = DType::kInt8;
};

/// A is m x k, B is k x n (int8 or bf16); C is m x n of 32-bit results
/// (int32 or fp32). A in blocks of `rows` columns (one fold's K slice), B and
/// C in blocks of `cols` columns; A, B, C each start on a 4 KiB boundary.
struct GemmLayout {
  MatrixLayout a, b, c;
};

/// Operands as raw element bits: int8 values, or bf16 bit patterns.
struct GemmOperands {
  std::vector<std::uint16_t> a, b;  ///< Row-major, one element per entry.
};

GemmLayout place_gemm(const GemmShape& shape, const TileGeometry& tile, std::uint64_t base = 0x1000'0000);

/// Operands drawn from a generator seeded with `seed`: int8 uniform over all
/// 256 values; bf16 with sign, exponent in [2^-8, 2^8) and random mantissa,
/// so sums stay finite and rounding is exercised.
GemmOperands random_gemm_operands(const GemmShape& shape, std::uint64_t seed);

/// Writes A and B into memory at their layout.
void store_operands(const GemmShape& shape, const GemmLayout& layout, const GemmOperands& ops, SparseMemory& mem);
/// Reads C (m x n raw 32-bit values, row-major) from memory.
std::vector<std::uint32_t> load_result(const GemmShape& shape, const GemmLayout& layout, const SparseMemory& mem);

/// The program: A and B tiles double-buffered in the scratchpad (the DMA
/// fetches fold f+1 while the array computes fold f), weights loaded into
/// alternating buffers, results accumulated over K, then OUTPUT (raw) and
/// DMA_STORE per output tile. Dependencies are encoded in wait fields.
Program compile_gemm(const GemmShape& shape, const GemmLayout& layout, const TileGeometry& tile);

/// The largest m, k or n (and an MLP's hidden size) the compiler takes.
inline constexpr std::uint32_t kMaxGemmDim = 1u << 16;
/// Throws std::invalid_argument naming the offending field.
void validate(const GemmShape& shape);
/// Folds a compiled program may hold: each is 4 to 6 instructions, so at
/// most about 25 million instructions (about 1 GiB of program).
inline constexpr std::uint64_t kMaxGemmFolds = std::uint64_t{1} << 22;
/// The shape, and its program on `tile` (the scratchpad holds the buffers;
/// at most kMaxGemmFolds folds): checked before operands or a program of
/// that size are made.
void validate(const GemmShape& shape, const TileGeometry& tile);
/// Rows of A per fold the compiler uses on `tile`: two activation buffers,
/// two weight buffers of `rows` rows and one output region of as many rows
/// fit the scratchpad, and the accumulators hold them. Throws
/// std::invalid_argument when the array is too tall for any.
std::uint32_t gemm_m_block(const TileGeometry& tile);

}  // namespace mxc
