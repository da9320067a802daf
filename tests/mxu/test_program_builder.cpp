#include <catch2/catch.hpp>

#include "models/mxu/program_builder.h"
#include "models/mxu/unit_queues.h"

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
  // Another unit holds at most 5 outstanding (4 queued, 1 executing): 5 later ones leave it complete.
  ProgramBuilder pb;
  const auto first = pb.emit(op(Opcode::MATMUL));
  for (int i = 0; i < 4; ++i) pb.emit(op(Opcode::MATMUL));
  pb.emit(op(Opcode::DMA_STORE), {first});
  CHECK(pb.program().back().wait_compute == 4);
  pb.emit(op(Opcode::MATMUL));
  pb.emit(op(Opcode::DMA_STORE), {first});
  CHECK(pb.program().back().wait_compute == isa::kNoWait);
  // Its own unit has room in its queue when it dispatches: at most 4 earlier ones are outstanding.
  ProgramBuilder own;
  const auto send = own.emit(op(Opcode::ICI_SEND));
  for (int i = 0; i < 3; ++i) own.emit(op(Opcode::ICI_SEND));
  own.emit(op(Opcode::ICI_WAIT), {send});
  CHECK(own.program().back().wait_ici == 3);
  own.emit(op(Opcode::ICI_WAIT), {send});
  CHECK(own.program().back().wait_ici == isa::kNoWait);
}

TEST_CASE("program builder: the bound on outstanding instructions is the queue depth at dispatch") {
  CHECK(kUnitQueueDepth == 4);  // rtl/mxu_tile.sv: mxu_fifo DEPTH(4) per unit
  CHECK(max_outstanding_at_dispatch(Unit::dma, Unit::dma) == 4);
  CHECK(max_outstanding_at_dispatch(Unit::compute, Unit::dma) == 5);
  CHECK(max_outstanding_at_dispatch(Unit::none, Unit::ici) == 5);
}
