#pragma once
// Two-layer MLP on one tile: H = act(X x W1), C = H x W2, in one program
// (docs/workloads.md). act is ReLU then conversion to the input type: bf16
// (round to nearest even) or int8 (rounding right shift by `shift`, then
// saturation). H goes back to HBM in the A layout GEMM2 reads.
#include <cstdint>
#include <vector>

#include "models/core/sparse_memory.h"
#include "models/mxu/instr.h"
#include "models/mxu/matrix_layout.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

struct MlpShape {
  std::uint32_t m = 0;       ///< Batch rows of X.
  std::uint32_t k = 0;       ///< Input features.
  std::uint32_t hidden = 0;  ///< Hidden features (N of GEMM1, K of GEMM2).
  std::uint32_t n = 0;       ///< Output features.
  DType dtype = DType::kInt8;
  std::uint8_t shift = 0;    ///< int8 only: OUTPUT shift of layer 1 (see mlp_default_shift).
};

/// int8 shift the compiler picks for layer 1: 7 + ceil(log2(k) / 2), so a sum
/// of k products of uniform int8 values (standard deviation about 5.5e3 *
/// sqrt(k)) lands mostly within int8 range after the shift. At most 31.
std::uint8_t mlp_default_shift(std::uint32_t k);

struct MlpLayout {
  MatrixLayout x, w1, h, w2, c;  ///< h is blocked like an A operand (array rows).
};

struct MlpOperands {
  std::vector<std::uint16_t> x, w1, w2;  ///< Row-major raw element bits.
};

/// Throws std::invalid_argument naming the bad field, or when the tile's
/// shape cannot store H in GEMM2's layout (needs rows == cols, or rows a
/// multiple of cols with cols elements a whole number of beats).
void validate(const MlpShape& shape, const TileGeometry& tile);
/// The tile-shape part of that check alone (for a model of the MLP that
/// compiles nothing): throws std::invalid_argument unless H fits GEMM2's layout.
void validate_mlp_array(const TileGeometry& tile, DType dtype);
MlpLayout place_mlp(const MlpShape& shape, const TileGeometry& tile, std::uint64_t base = 0x1000'0000);
/// X and W1 as random_gemm_operands(m, k, hidden, seed); W2 from a second stream of the same seed.
MlpOperands random_mlp_operands(const MlpShape& shape, std::uint64_t seed);
void store_mlp_operands(const MlpShape& shape, const MlpLayout& layout, const MlpOperands& ops, SparseMemory& mem);
/// C (m x n raw 32-bit values, row-major) from memory.
std::vector<std::uint32_t> load_mlp_result(const MlpShape& shape, const MlpLayout& layout, const SparseMemory& mem);
/// H (m x hidden raw element bits) from memory.
std::vector<std::uint16_t> load_mlp_hidden(const MlpShape& shape, const MlpLayout& layout, const SparseMemory& mem);

Program compile_mlp(const MlpShape& shape, const MlpLayout& layout, const TileGeometry& tile);

}  // namespace mxc
