#include <catch2/catch.hpp>

#include <random>

#include "models/mxu/instr.h"

using namespace mxc;

TEST_CASE("isa: encode then decode returns every field") {
  std::mt19937_64 gen(5);
  for (int i = 0; i < 500; ++i) {
    Instr in;
    in.op = static_cast<Opcode>(gen() % 9);
    in.wait_dma = gen() % 16;
    in.wait_compute = gen() % 16;
    in.wait_ici = gen() % 16;
    in.dtype = static_cast<DType>(gen() % 2);
    in.accumulate = gen() % 2;
    in.buf = gen() % 2;
    in.relu = gen() % 2;
    in.convert = gen() % 2;
    in.to_acc = gen() % 2;
    in.shift = gen() % 32;
    in.dst_chip = static_cast<std::uint8_t>(gen());
    in.rows = static_cast<std::uint16_t>(gen());
    in.cols = static_cast<std::uint16_t>(gen());
    in.sp_row = static_cast<std::uint16_t>(gen());
    in.acc_row = static_cast<std::uint16_t>(gen());
    in.remote_row = static_cast<std::uint16_t>(gen());
    in.hbm_addr = gen() & ((1ull << 48) - 1);
    in.hbm_stride = static_cast<std::uint32_t>(gen());
    CHECK(decode(encode(in)) == in);
  }
}

TEST_CASE("isa: fields sit at their documented bits") {
  Instr in;
  in.op = Opcode::MATMUL;  // 4
  in.rows = 0x1234;        // bits 48..63
  in.hbm_addr = 0xABCDEF;  // bits 128..175
  in.wait_dma = 0;
  const InstrWord w = encode(in);
  CHECK((w[0] & 0xf) == 4);
  CHECK(((w[0] >> 4) & 0xf) == 0);       // wait_dma
  CHECK(((w[0] >> 8) & 0xf) == 15);      // wait_compute: no wait
  CHECK((w[0] >> 48) == 0x1234);
  CHECK((w[2] & 0xffffffffffff) == 0xABCDEF);
  CHECK(w[3] == 0);
}

TEST_CASE("isa: a field that does not fit is an error naming it") {
  Instr in;
  in.shift = 32;
  CHECK_THROWS_WITH(encode(in), Catch::Contains("SHIFT"));
  in.shift = 0;
  in.hbm_addr = 1ull << 48;
  CHECK_THROWS_WITH(encode(in), Catch::Contains("HBM_ADDR"));
}

TEST_CASE("isa: decode rejects unknown opcodes and reserved bits") {
  InstrWord w{};
  w[0] = 0xF;  // opcode 15 is not defined
  CHECK_THROWS_WITH(decode(w), Catch::Contains("unknown opcode 15"));
  w = encode(Instr{});
  w[3] |= 1ull << 63;
  CHECK_THROWS_WITH(decode(w), Catch::Contains("reserved"));
}

TEST_CASE("isa: opcode names round-trip and units are as documented") {
  Opcode op;
  REQUIRE(opcode_from_string("dma_load", op));
  CHECK(op == Opcode::DMA_LOAD);
  CHECK_FALSE(opcode_from_string("jump", op));
  CHECK(unit_of(Opcode::DMA_STORE) == Unit::dma);
  CHECK(unit_of(Opcode::OUTPUT) == Unit::compute);
  CHECK(unit_of(Opcode::ICI_WAIT) == Unit::ici);
  CHECK(unit_of(Opcode::FENCE) == Unit::none);
}
