#pragma once
// Runs one program per chip on the performance model: a ModelTile per chip,
// each with its own memory (ideal or HBM), and for more than one chip the
// packet-level ICI fabric (a ring). No RTL; the same event loop as the
// co-simulation kernel (earliest next event first, ties by registration).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/hbm/hbm_config.h"
#include "models/mxu/instr.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

struct ModelSystemConfig {
  TileGeometry geometry;
  double clock_mhz = 1000.0;
  bool ideal_memory = true;
  Time memory_latency_ps = 100'000;  ///< Ideal memory.
  std::uint32_t memory_outstanding = 64;
  hbm::MemoryConfig hbm;             ///< When !ideal_memory.
  double ici_gbps = 45.0;            ///< Per link per direction.
  /// Tile cycles without any chip completing an instruction (or moving DMA or ICI bytes)
  /// before the run is declared hung (an ICI_WAIT that never finishes keeps its tile
  /// ticking); at least twice the ideal memory's latency and a scratchpad row's trip over the
  /// fabric's longest path, which a fast clock or a slow link can make longer.
  std::uint64_t watchdog_cycles = 200'000;
};

struct ModelSystemResult {
  bool finished = false;
  std::string error;                 ///< Which chips did not finish, and their state.
  std::uint64_t cycles = 0;          ///< Of the slowest chip.
  std::vector<std::uint64_t> chip_cycles;
  std::uint64_t bytes_read = 0, bytes_written = 0;  ///< At the tiles' AXI ports, all chips.
  std::vector<std::pair<std::string, std::uint64_t>> counters;  ///< Summed over chips.
  Time sim_time_ps = 0;
};

/// Throws std::invalid_argument on a bad configuration or a send to a chip that does not exist.
ModelSystemResult run_model_system(const std::vector<Program>& programs, const ModelSystemConfig& cfg);

}  // namespace mxc
