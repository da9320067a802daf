#pragma once
// What a system runs: per chip an initial memory image and a program per
// tile, and the result regions the data scoreboard checks.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cosim/system_config.h"
#include "models/core/sparse_memory.h"
#include "models/mxu/assembler.h"
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
  /// Rows of the matrix this chip holds at the end (a K-split GEMM leaves
  /// each chip one row block of C).
  std::uint32_t first_row = 0, end_row = ~0u;
};

/// Reads a region's elements (row-major) as 32-bit values.
std::vector<std::uint32_t> read_region(const ResultRegion& region, const SparseMemory& mem);

/// The byte a run puts at `addr` before it starts, where results will go (poison_stores()):
/// de ad be ef, repeating from each address that is a multiple of 4. Both the design's memory
/// and the reference's start so, so a byte the design never writes (or writes where its strobe
/// is low) differs from the reference wherever the reference writes it, zeros included: an
/// empty memory reads 0, which is what many results hold.
std::uint8_t poison_byte(std::uint64_t addr);
/// Fills [addr, addr + bytes) of `mem` with poison_byte().
void poison(SparseMemory& mem, std::uint64_t addr, std::uint64_t bytes);
/// Poisons the whole beats (`beat_bytes` each) of every row a DMA_STORE of `programs` (the
/// tiles of one chip) writes, but for the bytes a DMA_LOAD reads before its own program has
/// stored them: those keep the image's bytes, which the load is meant to read. What is stored
/// and then loaded back (the MLP's H) is poisoned like any result.
void poison_stores(SparseMemory& mem, const std::vector<Program>& programs, std::uint32_t beat_bytes);

struct WorkloadSpec {
  std::string kind = "gemm";     ///< "gemm", "mlp" or "program".
  GemmShape shape{16, 16, 16, DType::kInt8};
  std::string split = "none";    ///< gemm on several chips: "none" (each chip its own), "k" or "n".
  std::uint32_t hidden = 0;      ///< mlp: hidden features (0: same as n).
  /// program: assembly files (docs/isa.md) tile 0 of the chips runs: one, which every chip runs,
  /// or one per chip (chip c runs the c-th).
  std::vector<std::string> program_files;

  /// The MLP's hidden features: `hidden`, or n when it is 0.
  std::uint32_t hidden_features() const { return hidden ? hidden : shape.n; }
};

/// What the functional reference leaves in each chip's memory, and the reads of memory its
/// programs never wrote (per tile, for the run's warning).
struct ReferenceResult {
  std::vector<SparseMemory> images;
  std::vector<std::string> undefined;
};

struct Workload {
  std::string description;
  /// Check every byte the reference wrote, not just the regions (programs).
  bool check_whole_image = false;
  /// program: per chip, where each instruction of its program came from, for messages.
  std::vector<ProgramSource> sources;
  std::vector<SparseMemory> images;               ///< Per chip.
  std::vector<std::vector<Program>> programs;     ///< [chip][tile].
  std::vector<std::vector<ResultRegion>> regions; ///< Per chip.
  /// The reference's result when worked out with the workload (build_run_workload), so that a
  /// program the reference cannot finish is said before the run; else the run works it out.
  std::shared_ptr<const ReferenceResult> reference;
};

/// gemm, split none: every chip computes C = A x B on its own memory
/// (operands drawn from seed + chip); the tiles of a chip split N between
/// them, each a whole number of array-column blocks (the first tiles the
/// larger shares; with fewer blocks than tiles the last ones idle), and each
/// tile's columns are one region. gemm, split k or n: one GEMM over all chips through the
/// ICI (models/mxu/multichip_program.h), on tile 0 of each chip. mlp: a
/// two-layer MLP on tile 0 of each chip. program: an assembly file on tile 0
/// of each chip (one for all, or one per chip), every byte of memory it
/// writes checked, on a memory whose bytes each DMA_LOAD reads are random
/// (drawn from seed + chip). The images
/// are not poisoned: a run poisons them (poison_stores()) whatever built them.
Workload build_workload(const WorkloadSpec& spec, const SystemConfig& cfg, const TileGeometry& geo,
                        std::uint64_t seed);

}  // namespace mxc
