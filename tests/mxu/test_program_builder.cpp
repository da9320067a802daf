#include <catch2/catch.hpp>

#include "models/mxu/program_builder.h"

using namespace mxc;

namespace {
Instr op(Opcode o) {
  Instr in;
  in.op = o;
  return in;
}
}  // namespace

TEST_CASE("program builder: a dependency becomes the number of later same-unit instructions") {
  ProgramBuilder pb;
  const auto load = pb.emit(op(Opcode::DMA_LOAD));
  pb.emit(op(Opcode::DMA_LOAD));
  pb.emit(op(Opcode::DMA_LOAD));
  pb.emit(op(Opcode::MATMUL), {load});  // two DMA instructions after `load`
  const Program& p = pb.program();
  CHECK(p[3].wait_dma == 2);
  CHECK(p[3].wait_compute == isa::kNoWait);
  CHECK(p[3].wait_ici == isa::kNoWait);
  CHECK(p[0].wait_dma == isa::kNoWait);
}

TEST_CASE("program builder: the tightest dependency per unit wins, other units are independent") {
  ProgramBuilder pb;
  const auto a = pb.emit(op(Opcode::DMA_LOAD));
  const auto b = pb.emit(op(Opcode::DMA_LOAD));
  const auto c = pb.emit(op(Opcode::MATMUL));
  pb.emit(op(Opcode::ICI_SEND), {a, b, c});
  const Instr& last = pb.program().back();
  CHECK(last.wait_dma == 0);      // b is the newest DMA instruction
  CHECK(last.wait_compute == 0);  // c is the newest compute instruction
}

TEST_CASE("program builder: a dependency further back than a unit can hold needs no wait") {
  ProgramBuilder pb;
  const auto first = pb.emit(op(Opcode::MATMUL));
  for (std::uint64_t i = 0; i < ProgramBuilder::kMaxOutstanding; ++i) pb.emit(op(Opcode::MATMUL));
  pb.emit(op(Opcode::DMA_STORE), {first});
  CHECK(pb.program().back().wait_compute == isa::kNoWait);
}
