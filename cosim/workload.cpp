#include "cosim/workload.h"

#include <stdexcept>

namespace mxc {

namespace {

/// Column blocks [first, first + count) of a column-blocked matrix, as a matrix of its own.
MatrixLayout column_blocks(const MatrixLayout& m, std::uint32_t first, std::uint32_t cols) {
  MatrixLayout sub = m;
  sub.base = m.base + first * m.block_pitch();
  sub.cols = cols;
  return sub;
}

}  // namespace

std::vector<std::uint32_t> read_region(const ResultRegion& region, const SparseMemory& mem) {
  const MatrixLayout& l = region.layout;
  std::vector<std::uint32_t> out(std::size_t{l.rows} * l.cols, 0);
  std::uint8_t b[4] = {};
  for (std::uint32_t i = 0; i < l.rows; ++i)
    for (std::uint32_t j = 0; j < l.cols; ++j) {
      mem.read(l.addr(i, j), std::span<std::uint8_t>(b, l.elem_bytes));
      std::uint32_t v = 0;
      for (std::uint32_t k = 0; k < l.elem_bytes; ++k) v |= std::uint32_t{b[k]} << (8 * k);
      out[std::size_t{i} * l.cols + j] = v;
    }
  return out;
}

Workload build_workload(const WorkloadSpec& spec, const SystemConfig& cfg, const TileGeometry& geo,
                        std::uint64_t seed) {
  if (spec.kind != "gemm") throw std::invalid_argument("workload '" + spec.kind + "' is not supported (use gemm)");
  validate(spec.shape);
  Workload w;
  const GemmShape& s = spec.shape;
  w.description = "gemm " + std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) + " " +
                  std::string(to_string(s.dtype));
  const GemmLayout layout = place_gemm(s, geo);
  const std::uint32_t blocks = layout.c.blocks();
  const std::uint32_t tiles = cfg.tiles_per_chip;
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    SparseMemory image;
    store_operands(s, layout, random_gemm_operands(s, seed + c), image);
    w.images.push_back(std::move(image));
    std::vector<Program> progs;
    std::vector<ResultRegion> regions;
    for (std::uint32_t t = 0; t < tiles; ++t) {
      // Tile t takes column blocks [t*blocks/tiles, (t+1)*blocks/tiles).
      const std::uint32_t b0 = t * blocks / tiles, b1 = (t + 1) * blocks / tiles;
      if (b0 == b1) {
        progs.emplace_back();  // more tiles than column blocks: this one idles
        continue;
      }
      const std::uint32_t n0 = b0 * geo.cols, n1 = std::min(s.n, b1 * geo.cols);
      GemmShape sub = s;
      sub.n = n1 - n0;
      GemmLayout sl = layout;
      sl.b = column_blocks(layout.b, b0, sub.n);
      sl.c = column_blocks(layout.c, b0, sub.n);
      progs.push_back(compile_gemm(sub, sl, geo));
      const std::string name = "chip" + std::to_string(c) + (tiles > 1 ? ".tile" + std::to_string(t) : "") + ".C";
      regions.push_back(ResultRegion{name, sl.c, s.dtype, t});
    }
    w.programs.push_back(std::move(progs));
    w.regions.push_back(std::move(regions));
  }
  return w;
}

}  // namespace mxc
