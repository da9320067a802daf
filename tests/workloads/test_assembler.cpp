// Assembly text: random programs survive text and back; errors name file,
// line and field; the hand-written programs in tests/programs parse and
// compute what their comments say.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "models/mxu/assembler.h"
#include "models/mxu/instr_check.h"
#include "models/mxu/functional_tile.h"
#include "tests/temp_dir.h"

using namespace mxc;

namespace {

Instr random_instr(std::mt19937_64& gen) {
  const auto bits = [&](unsigned n) { return n >= 64 ? gen() : gen() & ((std::uint64_t{1} << n) - 1); };
  Instr in;
  in.op = static_cast<Opcode>(bits(64) % 9);
  // Half the instructions keep irrelevant fields zero (as compilers emit), half set everything.
  const bool all = gen() & 1;
  in.wait_dma = static_cast<std::uint8_t>(bits(4));
  in.wait_compute = static_cast<std::uint8_t>(bits(4));
  in.wait_ici = static_cast<std::uint8_t>(bits(4));
  in.rows = static_cast<std::uint16_t>(bits(16));
  in.cols = static_cast<std::uint16_t>(bits(16));
  in.sp_row = static_cast<std::uint16_t>(bits(16));
  if (all) {
    in.dtype = static_cast<DType>(bits(1));
    in.accumulate = bits(1);
    in.buf = static_cast<std::uint8_t>(bits(1));
    in.relu = bits(1);
    in.convert = bits(1);
    in.to_acc = bits(1);
    in.shift = static_cast<std::uint8_t>(bits(5));
    in.dst_chip = static_cast<std::uint8_t>(bits(8));
    in.acc_row = static_cast<std::uint16_t>(bits(16));
    in.remote_row = static_cast<std::uint16_t>(bits(16));
    in.hbm_addr = bits(48);
    in.hbm_stride = static_cast<std::uint32_t>(bits(32));
  }
  return in;
}

std::string parse_error(const std::string& text) {
  std::istringstream in(text);
  try {
    parse_program(in, "prog.s");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

Program parse(const std::string& text) {
  std::istringstream in(text);
  return parse_program(in, "t.s");
}

}  // namespace

TEST_CASE("assembler: random programs round-trip through text exactly") {
  std::mt19937_64 gen(7);
  for (int trial = 0; trial < 200; ++trial) {
    Program p;
    for (int i = 0; i < 50; ++i) p.push_back(random_instr(gen));
    const std::string text = format_program(p);
    std::istringstream in(text);
    const Program back = parse_program(in, "round.s");
    REQUIRE(back.size() == p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      INFO(describe(p[i]));
      REQUIRE(back[i] == p[i]);
    }
    REQUIRE(format_program(back) == text);
  }
}

TEST_CASE("assembler: the text is describe(), one instruction per line") {
  Instr mm;
  mm.op = Opcode::MATMUL;
  mm.rows = 16;
  mm.cols = 4;
  mm.buf = 1;
  mm.accumulate = true;
  mm.wait_dma = 0;
  CHECK(describe(mm) == "matmul rows=16 cols=4 sp_row=0 acc_row=0 dtype=int8 buf=1 accumulate wait_dma=0");
  Instr ld;
  ld.op = Opcode::DMA_LOAD;
  ld.rows = 2;
  ld.cols = 64;
  ld.sp_row = 3;
  ld.hbm_addr = 0x1000'0040;
  ld.hbm_stride = 64;
  CHECK(format_program({ld, Instr{}}) ==
        "dma_load rows=2 cols=64 sp_row=3 hbm_addr=0x10000040 hbm_stride=64\nnop\n");
}

TEST_CASE("assembler: syntax details (comments, hex, flags, case)") {
  const Program p = parse(
      "# a comment line\n"
      "\n"
      "   OUTPUT rows=0x10 cols=4 sp_row=8 acc_row=2 dtype=BF16 relu=1 convert=0 shift=3  # trailing\n"
      "ici_send rows=1 cols=32 dst_chip=255 remote_row=65535 to_acc dtype=bf16\n");
  REQUIRE(p.size() == 2);
  CHECK(p[0].op == Opcode::OUTPUT);
  CHECK(p[0].rows == 16);
  CHECK(p[0].dtype == DType::kBf16);
  CHECK(p[0].relu);
  CHECK_FALSE(p[0].convert);
  CHECK(p[0].shift == 3);
  CHECK(p[0].wait_dma == isa::kNoWait);
  CHECK(p[1].dst_chip == 255);
  CHECK(p[1].remote_row == 65535);
  CHECK(p[1].to_acc);
}

TEST_CASE("assembler: errors name the file, the line and the bad token") {
  CHECK(parse_error("nop\n\nmatmul rows=1 acc_rwo=3\n") == "prog.s:3: unknown field 'acc_rwo'");
  CHECK(parse_error("matmull rows=1\n") == "prog.s:1: unknown opcode 'matmull'");
  CHECK(parse_error("dma_load rows=65536\n") == "prog.s:1: field 'rows': value 65536 does not fit in 16 bits");
  CHECK(parse_error("nop wait_dma=16\n") == "prog.s:1: field 'wait_dma': value 16 does not fit in 4 bits");
  CHECK(parse_error("dma_load hbm_addr=0x1000000000000\n") ==
        "prog.s:1: field 'hbm_addr': value 0x1000000000000 does not fit in 48 bits");
  CHECK(parse_error("dma_load rows=12x\n") == "prog.s:1: field 'rows': bad number '12x'");
  CHECK(parse_error("dma_load rows=-1\n") == "prog.s:1: field 'rows': bad number '-1'");
  CHECK(parse_error("dma_load rows=\n") == "prog.s:1: field 'rows': missing value");
  CHECK(parse_error("dma_load rows\n") == "prog.s:1: field 'rows' needs a value (rows=N)");
  CHECK(parse_error("matmul rows=1 rows=2\n") == "prog.s:1: field 'rows' given twice");
  CHECK(parse_error("matmul dtype=fp8\n") == "prog.s:1: field 'dtype': expected int8 or bf16, not 'fp8'");
  CHECK(parse_error("output relu=2\n") == "prog.s:1: field 'relu': expected 0 or 1, not '2'");
  CHECK(parse_error("nop rows=99999999999999999999999\n").find("is too large") != std::string::npos);
  CHECK_THROWS_WITH(load_program_file("/nonexistent/x.s"), "/nonexistent/x.s: cannot open program file");
  // Lines are read up to 4095 characters: a longer one is no instruction, and a file without
  // newlines (/dev/zero) was read into memory until the allocation failed.
  CHECK(parse(std::string(4000, ' ') + "nop\n" + std::string(4095, '#')).size() == 1);
  CHECK(parse_error("nop\n" + std::string(4096, ' ') + "\n") == "prog.s:2: line longer than 4095 characters");
  // A CRLF line of 4095 characters: the carriage return is its ending, not a 4096th character.
  CHECK(parse(std::string(4092, ' ') + "nop\r\n" + "nop\r\n").size() == 2);
  CHECK(parse_error(std::string(4093, ' ') + "nop\r\n") == "prog.s:1: line longer than 4095 characters");
  // An endless file of NUL bytes fails at its first byte: a NUL is no program text (and
  // inside a message it cut the message short where it was printed: "unknown opcode 'nop").
  CHECK_THROWS_WITH(load_program_file("/dev/zero"), "/dev/zero:1: a NUL byte in column 1 (a binary file?)");
  CHECK(parse_error("nop\n" + std::string("nop\0x\n", 6)) == "prog.s:2: a NUL byte in column 4 (a binary file?)");
}

namespace {

/// The error of loading `text` as a program for a tile of `geo` ("" if none).
std::string geometry_error(const std::string& text, const TileGeometry& geo) {
  const mxc::testing::TempDir tmp;
  const auto path = tmp.path() / "prog.s";
  {
    std::ofstream f(path);
    f << text;
  }
  std::string error;
  try {
    load_program_file(path.string(), geo);
  } catch (const std::invalid_argument& e) {
    error = e.what();
    const std::string prefix = path.string() + ":";
    if (error.rfind(prefix, 0) == 0) error = "prog.s:" + error.substr(prefix.size());
  }
  return error;
}

}  // namespace

TEST_CASE("assembler: a program for a tile is checked against its geometry, naming line and field") {
  const TileGeometry t;  // 4x4, 256 accumulator rows, 1024 scratchpad rows, 32-byte rows
  CHECK(geometry_error("load_weights rows=99 cols=99 sp_row=0 dtype=int8 buf=0\n", t) ==
        "prog.s:1: field 'rows': 99 exceeds the 4-row array");
  CHECK(geometry_error("load_weights rows=4 cols=5 sp_row=0\n", t) ==
        "prog.s:1: field 'cols': 5 exceeds the 4-column array");
  CHECK(geometry_error("nop\nmatmul rows=2 cols=99 sp_row=2 acc_row=0 dtype=int8 buf=0\n", t) ==
        "prog.s:2: field 'cols': 99 exceeds the 4-row array");
  CHECK(geometry_error("matmul rows=2 cols=4 sp_row=2 acc_row=60000\n", t) ==
        "prog.s:1: field 'acc_row': 60000 + rows 2 exceeds the 256 accumulator rows");
  // 255 + 2 = 257 rows: one past the accumulators; 254 + 2 fits.
  CHECK(geometry_error("output rows=2 cols=4 sp_row=0 acc_row=255\n", t) ==
        "prog.s:1: field 'acc_row': 255 + rows 2 exceeds the 256 accumulator rows");
  CHECK(geometry_error("output rows=2 cols=4 sp_row=0 acc_row=254\n", t).empty());
  CHECK(geometry_error("dma_load rows=1 cols=32 sp_row=5000 hbm_addr=0 hbm_stride=32\n", t) ==
        "prog.s:1: field 'sp_row': 5000 + rows 1 exceeds the 1024 scratchpad rows");
  CHECK(geometry_error("dma_load rows=1 cols=33 sp_row=0\n", t) ==
        "prog.s:1: field 'cols': 33 exceeds the 32 bytes of a scratchpad row");
  CHECK(geometry_error("dma_store rows=1 cols=4 sp_row=0 hbm_addr=0x1010\n", t) ==
        "prog.s:1: field 'hbm_addr': 4112 is not a multiple of the 32-byte AXI beat");
  // Row 1 of 2 ends at 0xFFFFFFFFFFE0 + 32 + 32 = 2^48 + 32: past the 48-bit address; one row ends at 2^48 exactly.
  CHECK(geometry_error("dma_load rows=2 cols=32 sp_row=0 hbm_addr=0xFFFFFFFFFFE0 hbm_stride=32\n", t) ==
        "prog.s:1: field 'hbm_addr': 0xffffffffffe0 + (rows - 1) x hbm_stride + cols ends at 0x1000000000020, past the "
        "48-bit HBM address space");
  CHECK(geometry_error("dma_store rows=1 cols=32 sp_row=0 hbm_addr=0xFFFFFFFFFFE0\n", t).empty());
  // A store's rows 9 bytes long and 0 bytes apart overlap in HBM: their bursts' order is the memory's. A
  // load's may (it only reads them twice), and so may one row of a store; 32 bytes apart they do not.
  CHECK(geometry_error("dma_store rows=2 cols=9 sp_row=0 hbm_addr=0x2000 hbm_stride=0\n", t) ==
        "prog.s:1: field 'hbm_stride': 0 is less than cols 9: the store's rows overlap in HBM, and AXI4 does not "
        "order their writes (bursts in flight have different IDs), so which row's bytes remain would depend on the "
        "memory");
  CHECK(geometry_error("dma_load rows=2 cols=9 sp_row=0 hbm_addr=0x2000 hbm_stride=0\n", t).empty());
  CHECK(geometry_error("dma_store rows=1 cols=9 sp_row=0 hbm_addr=0x2000 hbm_stride=0\n", t).empty());
  CHECK(geometry_error("dma_store rows=2 cols=32 sp_row=0 hbm_addr=0x2000 hbm_stride=32\n", t).empty());
  CHECK(geometry_error("ici_send rows=0 cols=4\n", t) == "prog.s:1: field 'rows': must be >= 1");
  // Sent rows land at remote_row.. of a tile like this one.
  CHECK(geometry_error("ici_send rows=1 cols=32 dst_chip=0 remote_row=1030\n", t) ==
        "prog.s:1: field 'remote_row': 1030 + rows 1 exceeds the 1024 scratchpad rows");
  CHECK(geometry_error("ici_send rows=2 cols=16 remote_row=255 to_acc\n", t) ==
        "prog.s:1: field 'remote_row': 255 + rows 2 exceeds the 256 accumulator rows");
  CHECK(geometry_error("ici_send rows=2 cols=16 remote_row=254 to_acc\n", t).empty());
  // A file without instructions is refused by name; one with only a comment too.
  CHECK(geometry_error("", t) == "prog.s: no instructions");
  CHECK(geometry_error("# nothing\n\n", t) == "prog.s: no instructions");
  // The functional reference refuses the same instruction with the same words.
  SparseMemory hbm;
  FunctionalTile tile(t, hbm);
  Instr lw;
  lw.op = Opcode::LOAD_WEIGHTS;
  lw.rows = 99;
  lw.cols = 4;
  CHECK_THROWS_WITH(tile.step(lw), Catch::EndsWith("': field 'rows': 99 exceeds the 4-row array"));
}

TEST_CASE("assembler: a program's ICI sends go to chips the system has, named at their line") {
  const mxc::testing::TempDir dir;
  const std::string path = dir / "prog.s";
  {
    std::ofstream f(path);
    f << "# header\n\nnop\nici_send rows=1 cols=32 dst_chip=5 remote_row=10\n";
  }
  ProgramSource source;
  const Program p = load_program_file(path, TileGeometry{}, &source);
  CHECK(source.lines == std::vector<std::uint32_t>{3, 4});
  CHECK_NOTHROW(check_destinations(p, 6, source));
  // It said "prog.s: instruction 1 (...)": the line is 4.
  CHECK_THROWS_WITH(check_destinations(p, 5, source), path + ":4: field 'dst_chip': chip 5 of a 5-chip system");
}

TEST_CASE("assembler: a send into the rows it sends is refused (its chip sends them to itself)") {
  // Rows 0..5 into 2..7 of the same scratchpad: the chip (every chip runs the file) reads rows
  // 2..5 after the first rows arrived there, so the result depends on timing; the reference,
  // delivering each row as it is sent, copied row 0 on down, and the RTL failed against it.
  const ProgramSource source{"prog.s", {7}};
  const auto send = [](std::uint32_t sp_row, std::uint32_t remote_row, bool to_acc) {
    Instr in;
    in.op = Opcode::ICI_SEND;
    in.rows = 6;
    in.cols = 32;
    in.sp_row = static_cast<std::uint16_t>(sp_row);
    in.remote_row = static_cast<std::uint16_t>(remote_row);
    in.to_acc = to_acc;
    return Program{in};
  };
  CHECK_THROWS_WITH(check_destinations(send(0, 2, false), 1, source),
                    Catch::StartsWith("prog.s:7: field 'remote_row': scratchpad rows 2..7 overlap the rows sent, "
                                      "0..5: chip 0 runs this program too"));
  CHECK_THROWS_WITH(check_destinations(send(2, 0, false), 1, source), Catch::StartsWith("prog.s:7: field 'remote_row'"));
  CHECK_NOTHROW(check_destinations(send(0, 6, false), 1, source));  // the next rows: no overlap
  CHECK_NOTHROW(check_destinations(send(6, 0, false), 1, source));
  CHECK_NOTHROW(check_destinations(send(0, 2, true), 1, source));   // into the accumulators
}

TEST_CASE("assembler: a program run alone that waits for rows no send before it delivers is a deadlock") {
  const ProgramSource source{"prog.s", {2, 3, 5, 6}};
  Program p(4);
  p[0].op = Opcode::ICI_SEND, p[0].rows = 2, p[0].cols = 32, p[0].remote_row = 8;
  p[1].op = Opcode::ICI_WAIT, p[1].rows = 1;
  p[2].op = Opcode::ICI_WAIT, p[2].rows = 1;
  p[3].op = Opcode::ICI_WAIT, p[3].rows = 1;
  // Two rows arrive: the first two waits pass, the third waits for ever.
  CHECK_THROWS_WITH(check_waits_alone(p, source),
                    "prog.s:6: deadlock: 'ici_wait rows=1' waits for 1 rows and the sends before it deliver 0 "
                    "(one chip runs the program alone)");
  p.pop_back();
  CHECK_NOTHROW(check_waits_alone(p, source));
}

TEST_CASE("assembler: a byte-order mark starts a file harmlessly, a lone carriage return is named") {
  std::istringstream bom("\xef\xbb\xbfnop\nfence\n");
  CHECK(parse_program(bom, "prog.s").size() == 2);  // it was "unknown opcode '\ufeffnop'"
  // CR-only line ends joined the lines: "unknown field 'fence'".
  std::istringstream cr("nop\rfence\r");
  CHECK_THROWS_WITH(parse_program(cr, "prog.s"),
                    Catch::StartsWith("prog.s:1: a carriage return inside the line, in column 4"));
  std::istringstream crlf("nop\r\nfence\r\n");
  CHECK(parse_program(crlf, "prog.s").size() == 2);
}

TEST_CASE("assembler: every hand-written program in tests/programs parses") {
  const std::filesystem::path dir = std::filesystem::path(MXCOSIM_SOURCE_DIR) / "tests" / "programs";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".s") continue;
    INFO(entry.path().string());
    const Program p = load_program_file(entry.path().string());
    CHECK_FALSE(p.empty());
    ++files;
  }
  CHECK(files >= 3);
}

namespace {

Program program_file(const char* name) {
  return load_program_file(std::string(MXCOSIM_SOURCE_DIR) + "/tests/programs/" + name);
}

std::int32_t read_i32(const SparseMemory& m, std::uint64_t addr) {
  std::int32_t v;
  std::memcpy(&v, m.read(addr, 4).data(), 4);
  return v;
}

}  // namespace

TEST_CASE("assembler: tests/programs/int8_matmul.s computes its documented result") {
  SparseMemory hbm;
  hbm.write(0x1000, std::vector<std::uint8_t>{1, 2});
  hbm.write(0x1020, std::vector<std::uint8_t>{3, 0xfc});
  hbm.write(0x2000, std::vector<std::uint8_t>{5, 6});
  hbm.write(0x2020, std::vector<std::uint8_t>{0xf9, 8});
  FunctionalTile t(TileGeometry{}, hbm);
  t.run(program_file("int8_matmul.s"));
  CHECK(read_i32(hbm, 0x3000) == 23);
  CHECK(read_i32(hbm, 0x3004) == -14);
  CHECK(read_i32(hbm, 0x3020) == 17);
  CHECK(read_i32(hbm, 0x3024) == -46);
}

TEST_CASE("assembler: tests/programs/bf16_relu.s computes its documented result") {
  SparseMemory hbm;
  hbm.write(0x1000, std::vector<std::uint8_t>{0x80, 0x3f, 0x00, 0x40});
  hbm.write(0x1020, std::vector<std::uint8_t>{0x00, 0x3f, 0x80, 0xbf});
  hbm.write(0x2000, std::vector<std::uint8_t>{0x80, 0x3f, 0x80, 0x40});
  hbm.write(0x3000, std::vector<std::uint8_t>{0xaa, 0xaa, 0xaa, 0xaa});
  FunctionalTile t(TileGeometry{}, hbm);
  t.run(program_file("bf16_relu.s"));
  CHECK(hbm.read(0x3000, 4) == std::vector<std::uint8_t>{0x40, 0x40, 0x00, 0x00});
}

TEST_CASE("assembler: tests/programs/ici_acc_add.s adds a row into its accumulators through ICI") {
  SparseMemory hbm;
  hbm.write(0x1000, std::vector<std::uint8_t>{1, 2});
  hbm.write(0x1020, std::vector<std::uint8_t>{3, 0xfc});
  hbm.write(0x2000, std::vector<std::uint8_t>{5, 6});
  hbm.write(0x4000, std::vector<std::uint8_t>{100, 0, 0, 0, 0x38, 0xff, 0xff, 0xff});  // 100, -200
  FunctionalTile t(TileGeometry{}, hbm);
  t.run(program_file("ici_acc_add.s"));
  CHECK(read_i32(hbm, 0x3000) == 123);
  CHECK(read_i32(hbm, 0x3004) == -214);
}

TEST_CASE("assembler: tests/programs/ici_loopback.s copies a row through ICI") {
  SparseMemory hbm;
  std::vector<std::uint8_t> row(32);
  for (int i = 0; i < 32; ++i) row[i] = static_cast<std::uint8_t>(i);
  hbm.write(0x1000, row);
  FunctionalTile t(TileGeometry{}, hbm);
  t.run(program_file("ici_loopback.s"));
  CHECK(hbm.read(0x2000, 32) == row);
}
