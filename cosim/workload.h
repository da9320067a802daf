#pragma once
// What a system runs: per chip an initial memory image and a program per
// tile, and the result regions the data scoreboard checks.
#include <cstdint>
#include <string>
#include <vector>

#include "cosim/system_config.h"
#include "models/core/sparse_memory.h"
#include "models/mxu/gemm_program.h"
#include "models/mxu/matrix_layout.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

/// A matrix in memory the data scoreboard checks: elements of
/// layout.elem_bytes (1, 2 or 4) holding `dtype` data (4-byte elements:
/// int32 or fp32 results).
struct ResultRegion {
  std::string name;
  MatrixLayout layout;
  DType dtype = DType::kInt8;
  /// The tile of its chip that writes it; a region written by a performance
  /// model tile (timing only, no data) is not checked.
  std::uint32_t producer_tile = 0;
};

/// Reads a region's elements (row-major) as 32-bit values.
std::vector<std::uint32_t> read_region(const ResultRegion& region, const SparseMemory& mem);

struct WorkloadSpec {
  std::string kind = "gemm";     ///< "gemm" or "program".
  GemmShape shape{16, 16, 16, DType::kInt8};
  std::string program_file;      ///< kind "program": assembly text, run on every tile.
};

struct Workload {
  std::string description;
  std::vector<SparseMemory> images;               ///< Per chip.
  std::vector<std::vector<Program>> programs;     ///< [chip][tile].
  std::vector<std::vector<ResultRegion>> regions; ///< Per chip.
};

/// GEMM: every chip computes C = A x B on its own memory (operands drawn from
/// seed + chip); the tiles of a chip split N between them, each a whole
/// number of array-column blocks, and each tile's columns are one region.
Workload build_workload(const WorkloadSpec& spec, const SystemConfig& cfg, const TileGeometry& geo,
                        std::uint64_t seed);

}  // namespace mxc
