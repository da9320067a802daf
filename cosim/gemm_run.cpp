#include "cosim/gemm_run.h"

#include "bridge/rtl_tile.h"

namespace mxc {

GemmRunResult run_gemm_cosim(const GemmRunOptions& opts) {
  validate(opts.shape);
  const TileGeometry geo = rtl_tile_geometry(opts.rows, opts.cols);
  const GemmLayout layout = place_gemm(opts.shape, geo);
  SparseMemory image;
  store_operands(opts.shape, layout, random_gemm_operands(opts.shape, opts.seed), image);
  return run_program_cosim(opts, image, compile_gemm(opts.shape, layout, geo),
                           {ResultRegion{"C", layout.c, opts.shape.dtype}});
}

}  // namespace mxc
