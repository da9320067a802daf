#pragma once
// One co-simulation of a tile program on the verilated tile: the initial
// memory image is loaded into the memory model, the program runs on the RTL
// tile on the kernel (rows a chip sends to itself loop back), and every
// result region is compared element by element with the memory image the
// functional reference produced from the same start.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bridge/checker.h"
#include "models/core/sparse_memory.h"
#include "models/mxu/instr.h"
#include "models/mxu/matrix_layout.h"

namespace mxc {

/// A matrix in memory the run checks: elements of layout.elem_bytes (1, 2 or
/// 4) holding `dtype` data (4-byte elements: int32 or fp32 results).
struct ResultRegion {
  std::string name;
  MatrixLayout layout;
  DType dtype = DType::kInt8;
};

struct ProgramRunOptions {
  std::uint32_t rows = 4, cols = 4;
  std::uint64_t seed = 1;
  double tile_mhz = 1000.0;
  Time memory_latency_ps = 100'000;     ///< IdealMemory latency.
  std::uint32_t memory_outstanding = 64;
  double backpressure = 0.0;            ///< Random stall probability on every tile channel.
  std::string waveform;                 ///< FST file of the whole run; empty = none.
  /// Cycles without an instruction completing before the run is declared hung.
  std::uint64_t watchdog_cycles = 200'000;
  /// Flip bit 0 of this element of the first region after the run, before
  /// checking: proves on demand that the checker catches a wrong result.
  std::optional<std::uint64_t> inject_fault;
};

struct ProgramRunResult {
  bool passed = false;
  std::string error;                  ///< Non-empty when the run itself failed (hang, ...).
  std::uint64_t cycles = 0;           ///< Tile cycles from the first command to completion.
  std::uint64_t instructions = 0;
  Time sim_time_ps = 0;
  double wall_seconds = 0;
  std::uint64_t elements_checked = 0;
  std::uint64_t mismatch_count = 0;
  std::vector<Mismatch> mismatches;   ///< First ones, in element order.
  std::vector<std::pair<std::string, std::uint64_t>> perf;  ///< Hardware counters.
  std::uint64_t bytes_read = 0, bytes_written = 0;          ///< At the AXI port.
};

ProgramRunResult run_program_cosim(const ProgramRunOptions& opts, const SparseMemory& image, Program program,
                                   const std::vector<ResultRegion>& regions);

/// Reads a region's elements (row-major) as 32-bit values.
std::vector<std::uint32_t> read_region(const ResultRegion& region, const SparseMemory& mem);

}  // namespace mxc
