#pragma once
// One tile program on one RTL tile against an ideal memory: the directed-test
// and single-GEMM form of run_system (cosim/system_run.h). The result
// regions are compared with the functional reference's memory image.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cosim/system_run.h"
#include "cosim/workload.h"

namespace mxc {

struct ProgramRunOptions {
  std::uint32_t rows = 4, cols = 4;
  std::uint64_t seed = 1;
  double tile_mhz = 1000.0;
  Time memory_latency_ps = 100'000;     ///< IdealMemory latency.
  std::uint32_t memory_outstanding = 64;
  double backpressure = 0.0;            ///< Random stall probability on every tile channel.
  std::string waveform;                 ///< FST file of the whole run; empty = none.
  std::uint64_t watchdog_cycles = 200'000;
  /// Flip bit 0 of this element of the first region before checking.
  std::optional<std::uint64_t> inject_fault;
};

/// The single-tile view of a SystemRunResult.
struct ProgramRunResult {
  bool passed = false;
  std::string error;
  std::uint64_t cycles = 0;
  std::uint64_t instructions = 0;
  Time sim_time_ps = 0;
  double wall_seconds = 0;
  std::uint64_t elements_checked = 0;
  std::uint64_t mismatch_count = 0;
  std::vector<Mismatch> mismatches;
  std::vector<std::pair<std::string, std::uint64_t>> perf;
  std::uint64_t bytes_read = 0, bytes_written = 0;   ///< At the memory.
};

/// The one-chip, one-RTL-tile, ideal-memory system these options describe.
SystemRunOptions single_tile_system(const ProgramRunOptions& opts);

ProgramRunResult run_program_cosim(const ProgramRunOptions& opts, const SparseMemory& image, Program program,
                                   const std::vector<ResultRegion>& regions);

/// Narrows a one-tile system result.
ProgramRunResult single_tile_result(const SystemRunResult& r);

}  // namespace mxc
