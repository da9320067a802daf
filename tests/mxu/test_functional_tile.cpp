// Instruction semantics of the functional reference on hand-computed cases.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "models/mxu/functional_tile.h"

using namespace mxc;

namespace {

TileGeometry small() {
  TileGeometry g;
  g.rows = 2;
  g.cols = 2;
  g.acc_rows = 4;
  g.sp_rows = 16;
  return g;
}

Instr make(Opcode op, std::uint16_t rows, std::uint16_t cols, std::uint16_t sp_row = 0, std::uint16_t acc_row = 0) {
  Instr in;
  in.op = op;
  in.rows = rows;
  in.cols = cols;
  in.sp_row = sp_row;
  in.acc_row = acc_row;
  return in;
}

}  // namespace

TEST_CASE("functional tile: int8 weights, matmul, accumulate, raw output and store") {
  SparseMemory hbm;
  // W = [[1, 2], [3, -4]] at 0x1000 (rows 32 bytes apart); X rows [5, 6], [-7, 8] at 0x2000.
  hbm.write(0x1000, std::vector<std::uint8_t>{1, 2});
  hbm.write(0x1020, std::vector<std::uint8_t>{3, 0xfc});
  hbm.write(0x2000, std::vector<std::uint8_t>{5, 6});
  hbm.write(0x2020, std::vector<std::uint8_t>{0xf9, 8});
  FunctionalTile t(small(), hbm);
  Instr ld = make(Opcode::DMA_LOAD, 2, 2, 0);
  ld.hbm_addr = 0x1000;
  ld.hbm_stride = 32;
  t.run({ld});
  ld.sp_row = 2;
  ld.hbm_addr = 0x2000;
  t.run({ld});
  t.run({make(Opcode::LOAD_WEIGHTS, 2, 2, 0)});
  t.run({make(Opcode::MATMUL, 2, 2, 2, 0)});
  // y0 = [5*1 + 6*3, 5*2 + 6*-4] = [23, -14]; y1 = [-7 + 24, -14 - 32] = [17, -46]
  CHECK(static_cast<std::int32_t>(t.acc(0, 0)) == 23);
  CHECK(static_cast<std::int32_t>(t.acc(0, 1)) == -14);
  CHECK(static_cast<std::int32_t>(t.acc(1, 0)) == 17);
  CHECK(static_cast<std::int32_t>(t.acc(1, 1)) == -46);
  Instr acc = make(Opcode::MATMUL, 1, 2, 2, 1);
  acc.accumulate = true;
  t.run({acc});  // row 1 += y0
  CHECK(static_cast<std::int32_t>(t.acc(1, 0)) == 17 + 23);
  Instr out = make(Opcode::OUTPUT, 2, 2, 8, 0);
  t.run({out});
  std::int32_t v;
  std::memcpy(&v, t.sp_row(9).data() + 4, 4);
  CHECK(v == -46 - 14);
  Instr st = make(Opcode::DMA_STORE, 2, 8, 8);
  st.hbm_addr = 0x3000;
  st.hbm_stride = 32;
  t.run({st});
  std::memcpy(&v, hbm.read(0x3020, 4).data(), 4);
  CHECK(v == 40);
  CHECK(t.undefined_reads().empty());  // it reads only what it wrote
}

TEST_CASE("functional tile: an unwritten read names the rows and bytes never written and no others") {
  SparseMemory hbm;
  FunctionalTile t(small(), hbm);  // 2x2 array: 16-byte scratchpad rows
  Instr ld = make(Opcode::DMA_LOAD, 2, 16, 0);  // rows 0..1 whole
  ld.hbm_addr = 0x1000;
  ld.hbm_stride = 32;
  Instr part = make(Opcode::DMA_LOAD, 2, 7, 4);  // rows 4..5, bytes 0..6
  part.hbm_addr = 0x2000;
  part.hbm_stride = 32;
  Instr mid = make(Opcode::DMA_LOAD, 1, 16, 7);  // row 7 whole
  mid.hbm_addr = 0x3000;
  Instr st = make(Opcode::DMA_STORE, 9, 16, 0);  // rows 0..8
  st.hbm_addr = 0x4000;
  st.hbm_stride = 32;
  t.run({ld, part, mid, st});
  REQUIRE(t.undefined_reads().size() == 1);
  CHECK(t.undefined_reads()[0] == "'" + describe(st) +
                                      "' reads scratchpad rows 2..3 bytes 0..15, rows 4..5 bytes 7..15, row 6 bytes "
                                      "0..15, row 8 bytes 0..15, never written");
  // Past four runs of rows, the rest are counted: row 2 whole, row 3 from byte 1, ... apart.
  FunctionalTile u(small(), hbm);
  Program p;
  for (std::uint16_t r = 0; r < 7; ++r) {
    Instr l = make(Opcode::DMA_LOAD, 1, r, r);  // row r, bytes 0..r-1
    l.hbm_addr = 0x1000;
    if (r > 0) p.push_back(l);
  }
  Instr st7 = make(Opcode::DMA_STORE, 7, 16, 0);
  st7.hbm_addr = 0x4000;
  st7.hbm_stride = 32;
  p.push_back(st7);
  u.run(p);
  REQUIRE(u.undefined_reads().size() == 1);
  CHECK(u.undefined_reads()[0] == "'" + describe(st7) +
                                      "' reads scratchpad row 0 bytes 0..15, row 1 bytes 1..15, row 2 bytes 2..15, "
                                      "row 3 bytes 3..15 and 3 more rows, never written");
}

TEST_CASE("functional tile: reads of state no instruction wrote are noted, each naming what it read") {
  SparseMemory hbm;
  FunctionalTile t(small(), hbm);  // 2x2 array, 4 accumulator rows
  Instr ld = make(Opcode::DMA_LOAD, 1, 2, 0);  // scratchpad row 0, bytes 0..1
  ld.hbm_addr = 0x1000;
  ld.hbm_stride = 32;
  Instr st = make(Opcode::DMA_STORE, 2, 2, 0);  // rows 0..1: row 1 never written
  st.hbm_addr = 0x2000;
  st.hbm_stride = 32;
  Instr acc = make(Opcode::MATMUL, 1, 2, 0, 2);
  acc.accumulate = true;
  t.run({ld, st});
  CHECK(t.undefined_reads() ==
        std::vector<std::string>{"'" + describe(st) + "' reads scratchpad row 1 bytes 0..1, never written"});
  t.run({make(Opcode::MATMUL, 1, 2, 0, 0)});  // weight buffer 0 never loaded
  CHECK(t.undefined_reads().back() == "'" + describe(make(Opcode::MATMUL, 1, 2, 0, 0)) +
                                          "' reads weight buffer 0, never written");
  t.run({make(Opcode::LOAD_WEIGHTS, 2, 2, 0)});  // row 1 of the weights from scratchpad row 1
  CHECK(t.undefined_reads().back() == "'" + describe(make(Opcode::LOAD_WEIGHTS, 2, 2, 0)) +
                                          "' reads scratchpad row 1 bytes 0..1, never written");
  t.run({acc});  // accumulator row 2 never written
  CHECK(t.undefined_reads().back() == "'" + describe(acc) + "' reads accumulator row 2 columns 0..1, never written");
  t.run({make(Opcode::OUTPUT, 2, 2, 4, 0)});  // rows 0 (written by the MATMUL) and 1 (not)
  CHECK(t.undefined_reads().back() == "'" + describe(make(Opcode::OUTPUT, 2, 2, 4, 0)) +
                                          "' reads accumulator row 1 columns 0..1, never written");
  const std::size_t notes = t.undefined_reads().size();
  CHECK(notes == 5);
  // What is written since reads as written: the OUTPUT wrote scratchpad rows 4..5, 8 bytes
  // each; the accumulating MATMUL left accumulator row 2 written.
  Instr st2 = make(Opcode::DMA_STORE, 2, 8, 4);
  st2.hbm_addr = 0x3000;
  st2.hbm_stride = 32;
  Instr again = acc;
  t.run({st2, again});
  CHECK(t.undefined_reads().size() == notes);
  // An ICI_SEND reads nothing itself (rows sent to synchronise carry what the row holds), but
  // what arrives is unwritten where it was at the sender: scratchpad row 0 has bytes 0..1.
  Instr send = make(Opcode::ICI_SEND, 1, 4, 0);
  send.remote_row = 6;
  t.run({send});
  CHECK(t.undefined_reads().size() == notes);
  Instr st6 = make(Opcode::DMA_STORE, 1, 2, 6);
  st6.hbm_addr = 0x4000;
  t.run({st6});  // bytes 0..1 arrived written
  CHECK(t.undefined_reads().size() == notes);
  st6.cols = 4;
  t.run({st6});
  // Bytes 0..1 arrived written: only 2..3 are unwritten (it had said 0..3).
  CHECK(t.undefined_reads().back() == "'" + describe(st6) + "' reads scratchpad row 6 bytes 2..3, never written");
  // Added into accumulator row 0 (written): element 0 takes bytes 0..3, of which 2..3 unwritten.
  send.to_acc = true;
  send.remote_row = 0;
  t.run({send});
  CHECK(t.undefined_reads().size() == notes + 1);
  const Instr out0 = make(Opcode::OUTPUT, 1, 2, 12, 0);
  t.run({out0});
  CHECK(t.undefined_reads().back() == "'" + describe(out0) + "' reads accumulator row 0 column 0, never written");
}

TEST_CASE("functional tile: output converts int32 to int8 with rounding shift, saturation and relu") {
  SparseMemory hbm;
  FunctionalTile t(small(), hbm);
  // Accumulators via inbound ICI rows: row 0 = [0x28 (2.5 << 4), -300].
  IciRow r;
  r.to_acc = true;
  r.row = 0;
  r.bytes = 8;
  r.data.assign(t.geometry().sp_row_bytes(), 0);
  const std::int32_t vals[2] = {0x28, -300};
  std::memcpy(r.data.data(), vals, 8);
  t.receive(r);
  Instr out = make(Opcode::OUTPUT, 1, 2, 3, 0);
  out.convert = true;
  out.shift = 4;
  t.run({out});
  CHECK(static_cast<std::int8_t>(t.sp_row(3)[0]) == 2);     // 2.5 rounds to even
  CHECK(static_cast<std::int8_t>(t.sp_row(3)[1]) == -19);   // -18.75 -> -19
  out.shift = 0;
  t.run({out});
  CHECK(static_cast<std::int8_t>(t.sp_row(3)[1]) == -128);  // saturated
  out.relu = true;
  t.run({out});
  CHECK(t.sp_row(3)[1] == 0);
  CHECK(t.sp_row(3)[0] == 40);
}

TEST_CASE("functional tile: ici send loops back and ici_wait counts rows") {
  SparseMemory hbm;
  FunctionalTile t(small(), hbm);
  Instr send = make(Opcode::ICI_SEND, 2, 3, 0);
  send.remote_row = 10;
  CHECK_FALSE(t.step([] { Instr w; w.op = Opcode::ICI_WAIT; w.rows = 1; return w; }()));
  t.run({send});
  Instr wait;
  wait.op = Opcode::ICI_WAIT;
  wait.rows = 2;
  CHECK(t.step(wait));
  CHECK_FALSE(t.step(wait));  // both rows consumed
}

TEST_CASE("functional tile: out-of-range fields are errors naming the field") {
  SparseMemory hbm;
  FunctionalTile t(small(), hbm);
  CHECK_THROWS_WITH(t.step(make(Opcode::LOAD_WEIGHTS, 3, 2)), Catch::Contains("rows"));
  CHECK_THROWS_WITH(t.step(make(Opcode::MATMUL, 1, 2, 0, 4)), Catch::Contains("acc_row"));
  Instr ld = make(Opcode::DMA_LOAD, 1, 4);
  ld.hbm_addr = 3;
  CHECK_THROWS_WITH(t.step(ld), Catch::Contains("hbm_addr"));
}
