#include "models/mxu/program_executor.h"

#include <cstring>
#include <stdexcept>

namespace mxc {

ProgramExecutor::ProgramExecutor(const ArrayShape& array) : m_array(array) {
  validate(array);
  for (auto& w : m_weights) w.assign(std::size_t{array.rows} * array.cols, 0);
  m_acc.assign(std::size_t{array.acc_rows} * array.cols, 0);
}

void ProgramExecutor::run(const Program& program, SparseMemory& mem) {
  for (const Instr& in : program) execute(in, mem);
}

void ProgramExecutor::execute(const Instr& in, SparseMemory& mem) {
  const std::uint32_t R = m_array.rows, C = m_array.cols;
  switch (in.op) {
    case Opcode::kLoadWeights: {
      if (in.rows > R || in.cols > C || in.buf > 1) throw std::invalid_argument("load_weights: tile exceeds the array");
      auto& w = m_weights[in.buf];
      std::fill(w.begin(), w.end(), 0);
      for (std::uint32_t r = 0; r < in.rows; ++r) {
        const auto row = mem.read(in.addr + std::uint64_t{r} * in.stride, in.cols);
        std::memcpy(&w[std::size_t{r} * C], row.data(), in.cols);
      }
      break;
    }
    case Opcode::kMatmul: {
      if (in.cols > R || in.acc_addr + in.rows > m_array.acc_rows || in.buf > 1)
        throw std::invalid_argument("matmul: operands exceed the array or accumulators");
      const auto& w = m_weights[in.buf];
      for (std::uint32_t i = 0; i < in.rows; ++i) {
        const auto x = mem.read(in.addr + std::uint64_t{i} * in.stride, in.cols);
        std::uint32_t* acc = &m_acc[std::size_t{in.acc_addr + i} * C];
        for (std::uint32_t c = 0; c < C; ++c) {
          std::uint32_t sum = 0;
          for (std::uint32_t r = 0; r < in.cols; ++r)
            sum += static_cast<std::uint32_t>(std::int32_t{static_cast<std::int8_t>(x[r])} *
                                              std::int32_t{w[std::size_t{r} * C + c]});
          acc[c] = in.accumulate ? acc[c] + sum : sum;
        }
      }
      break;
    }
    case Opcode::kStore: {
      if (in.cols > C || in.acc_addr + in.rows > m_array.acc_rows)
        throw std::invalid_argument("store: operands exceed the array or accumulators");
      for (std::uint32_t i = 0; i < in.rows; ++i) {
        std::vector<std::uint8_t> bytes(std::size_t{in.cols} * 4);
        std::memcpy(bytes.data(), &m_acc[std::size_t{in.acc_addr + i} * C], bytes.size());
        mem.write(in.addr + std::uint64_t{i} * in.stride, bytes);
      }
      break;
    }
  }
}

}  // namespace mxc
