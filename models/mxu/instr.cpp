#include "models/mxu/instr.h"

#include <sstream>

namespace mxc {

std::string to_string(Opcode op) {
  switch (op) {
    case Opcode::kLoadWeights: return "load_weights";
    case Opcode::kMatmul: return "matmul";
    case Opcode::kStore: return "store";
  }
  return "opcode(" + std::to_string(static_cast<int>(op)) + ")";
}

std::string describe(const Instr& in) {
  std::ostringstream s;
  s << to_string(in.op) << " addr=0x" << std::hex << in.addr << std::dec << " stride=" << in.stride
    << " rows=" << in.rows << " cols=" << in.cols;
  if (in.op != Opcode::kLoadWeights) s << " acc=" << in.acc_addr;
  if (in.op == Opcode::kMatmul) s << (in.accumulate ? " accumulate" : " overwrite");
  if (in.op != Opcode::kStore) s << " buf=" << int(in.buf);
  return s.str();
}

}  // namespace mxc
