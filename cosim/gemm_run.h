#pragma once
// One co-simulation of a GEMM on the RTL tile: operands drawn from the seed
// and placed in memory, the program compiled for the tile, run and checked
// by run_program_cosim against the functional reference.
#include "cosim/program_run.h"
#include "models/mxu/gemm_program.h"

namespace mxc {

struct GemmRunOptions : ProgramRunOptions {
  GemmShape shape{16, 16, 16, DType::kInt8};
};

using GemmRunResult = ProgramRunResult;

GemmRunResult run_gemm_cosim(const GemmRunOptions& opts);

}  // namespace mxc
