#include "cosim/tile_factory.h"

#include <stdexcept>

#include "bridge/rtl_tile.h"
#include "models/mxu/model_tile.h"

namespace mxc {

std::unique_ptr<Tile> make_tile(const TileSpec& spec, MemoryTarget& mem) {
  if (spec.kind == TileKind::kRtl) {
    RtlTileConfig c;
    c.name = spec.name;
    c.rows = spec.geometry.rows;
    c.cols = spec.geometry.cols;
    c.chip = spec.chip;
    c.clock_mhz = spec.clock_mhz;
    c.seed = spec.seed;
    c.source_id = spec.source_id;
    c.waveform = spec.waveform;
    c.waveform_from_cycle = spec.waveform_from_cycle;
    c.waveform_to_cycle = spec.waveform_to_cycle;
    c.mutant = spec.mutant;
    c.cmd_gap = spec.backpressure;
    c.ici_out_stall = spec.backpressure;
    const double p = spec.backpressure;
    c.axi_backpressure = {p, p, p, p, p};
    return make_rtl_tile(c, mem);
  }
  ModelTileConfig c;
  c.name = spec.name;
  c.geometry = spec.geometry;
  c.chip = spec.chip;
  c.clock_mhz = spec.clock_mhz;
  c.source_id = spec.source_id;
  return std::make_unique<ModelTile>(c, mem);
}

}  // namespace mxc
