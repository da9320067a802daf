#pragma once
// One co-simulation of a GEMM on the RTL tile: operands placed in memory from
// the seed, the program compiled for the array, the verilated tile run to
// completion on the kernel, and the result checked element by element
// against the functional reference.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bridge/checker.h"
#include "models/mxu/gemm_program.h"

namespace mxc {

struct GemmRunOptions {
  std::uint32_t rows = 4, cols = 4;
  GemmShape shape{16, 16, 16};
  std::uint64_t seed = 1;
  double tile_mhz = 1000.0;
  Time memory_latency_ps = 100'000;     ///< IdealMemory latency.
  std::uint32_t max_outstanding = 16;
  std::string waveform;                 ///< FST file of the whole run; empty = none.
  /// Cycles without an instruction completing before the run is declared hung.
  std::uint64_t watchdog_cycles = 1'000'000;
  /// Flip bit 0 of this element of C after the run, before checking: proves
  /// on demand that the checker catches a wrong result.
  std::optional<std::uint64_t> inject_fault;
};

struct GemmRunResult {
  bool passed = false;
  std::string error;                  ///< Non-empty when the run itself failed (hang, ...).
  std::uint64_t cycles = 0;           ///< Tile cycles from first instruction to completion.
  std::uint64_t instructions = 0;
  Time sim_time_ps = 0;
  double wall_seconds = 0;
  std::uint64_t elements_checked = 0;
  std::uint64_t mismatch_count = 0;
  std::vector<Mismatch> mismatches;   ///< First ones, in element order.
};

GemmRunResult run_gemm_cosim(const GemmRunOptions& opts);

}  // namespace mxc
