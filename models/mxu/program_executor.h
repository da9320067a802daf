#pragma once
// Functional execution of a tile program on a memory image: no timing, just
// the architectural effect of each instruction (weight buffers, accumulators,
// memory). The expected memory image for any program, and a second
// implementation against which the compiler and the RTL are checked.
#include <cstdint>
#include <vector>

#include "models/core/sparse_memory.h"
#include "models/mxu/gemm_program.h"

namespace mxc {

class ProgramExecutor {
 public:
  explicit ProgramExecutor(const ArrayShape& array);

  /// Runs every instruction in order against `mem`.
  void run(const Program& program, SparseMemory& mem);
  void execute(const Instr& in, SparseMemory& mem);

 private:
  ArrayShape m_array;
  std::vector<std::int8_t> m_weights[2];   // rows x cols per buffer
  std::vector<std::uint32_t> m_acc;         // acc_rows x cols, wrapping int32
};

}  // namespace mxc
