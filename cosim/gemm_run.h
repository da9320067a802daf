#pragma once
// One GEMM on one RTL tile against an ideal memory (the single-tile form of
// run_system with a GEMM workload).
#include "cosim/program_run.h"
#include "models/mxu/gemm_program.h"

namespace mxc {

struct GemmRunOptions : ProgramRunOptions {
  GemmShape shape{16, 16, 16, DType::kInt8};
};

using GemmRunResult = ProgramRunResult;

GemmRunResult run_gemm_cosim(const GemmRunOptions& opts);

}  // namespace mxc
