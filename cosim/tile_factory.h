#pragma once
// Makes a tile of either kind behind the Tile seam.
#include <cstdint>
#include <memory>
#include <string>

#include "cosim/system_config.h"
#include "models/core/memory_target.h"
#include "models/mxu/tile.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

struct TileSpec {
  std::string name;
  TileKind kind = TileKind::kRtl;
  TileGeometry geometry;
  double clock_mhz = 1000.0;
  std::uint32_t chip = 0;
  std::uint32_t source_id = 0;     ///< MemRequest::source of its traffic.
  std::uint64_t seed = 1;
  double backpressure = 0.0;       ///< RTL only: random stalls on its channels.
  std::string waveform;            ///< RTL only.
  std::uint64_t waveform_from_cycle = 0, waveform_to_cycle = ~0ull;
  std::string mutant;              ///< RTL only: a mutant tile (docs/mutants.md); empty = none.
};

std::unique_ptr<Tile> make_tile(const TileSpec& spec, MemoryTarget& mem);

}  // namespace mxc
