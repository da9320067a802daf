#include "cosim/gemm_run.h"

namespace mxc {

GemmRunResult run_gemm_cosim(const GemmRunOptions& opts) {
  SystemRunOptions s = single_tile_system(opts);
  s.workload.kind = "gemm";
  s.workload.shape = opts.shape;
  return single_tile_result(run_system(s));
}

}  // namespace mxc
