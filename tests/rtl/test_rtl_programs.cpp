// Directed programs on the RTL tile: output conversions, ICI loopback into
// the scratchpad and the accumulators, bf16 special values, and the error
// output. Each is checked against the functional reference's memory image.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <sstream>

#include "bridge/rtl_tile.h"
#include "cosim/program_run.h"
#include "models/mxu/assembler.h"
#include "models/mxu/program_builder.h"

using namespace mxc;

namespace {

constexpr std::uint64_t kIn = 0x10000, kW = 0x20000, kOut = 0x30000;

Instr dma(Opcode op, std::uint16_t rows, std::uint16_t bytes, std::uint16_t sp_row, std::uint64_t addr) {
  Instr in;
  in.op = op;
  in.rows = rows;
  in.cols = bytes;
  in.sp_row = sp_row;
  in.hbm_addr = addr;
  in.hbm_stride = 32;
  return in;
}

Instr compute(Opcode op, std::uint16_t rows, std::uint16_t cols, std::uint16_t sp_row, DType t) {
  Instr in;
  in.op = op;
  in.rows = rows;
  in.cols = cols;
  in.sp_row = sp_row;
  in.dtype = t;
  return in;
}

/// Rows of 32 bytes at `base`, each filled from `values` (element bytes, row-major).
void put_rows(SparseMemory& mem, std::uint64_t base, std::uint32_t rows, std::uint32_t row_bytes,
              const std::vector<std::uint8_t>& values) {
  for (std::uint32_t r = 0; r < rows; ++r)
    mem.write(base + 32ull * r, std::span(values.data() + r * row_bytes, row_bytes));
}

ProgramRunResult run(const SparseMemory& image, Program p, std::vector<ResultRegion> regions, double bp = 0,
                     std::uint64_t latency_ps = 20'000) {
  ProgramRunOptions o;
  o.memory_latency_ps = latency_ps;
  o.backpressure = bp;
  o.seed = 3;
  return run_program_cosim(o, image, std::move(p), regions);
}

std::string why(const ProgramRunResult& r) { return r.error + (r.mismatches.empty() ? "" : to_string(r.mismatches[0])); }

/// A 4x4 matmul program: load X (4 rows) and W, multiply, OUTPUT with `out`
/// settings into scratchpad row 16, store `store_bytes` per row to kOut.
Program matmul_program(DType t, const Instr& out_settings, std::uint16_t store_bytes) {
  const std::uint16_t eb = t == DType::kBf16 ? 2 : 1;
  ProgramBuilder pb;
  const auto lx = pb.emit(dma(Opcode::DMA_LOAD, 4, 4 * eb, 0, kIn));
  const auto lw = pb.emit(dma(Opcode::DMA_LOAD, 4, 4 * eb, 8, kW));
  pb.emit(compute(Opcode::LOAD_WEIGHTS, 4, 4, 8, t), {lw});
  pb.emit(compute(Opcode::MATMUL, 4, 4, 0, t), {lx});
  Instr out = out_settings;
  out.op = Opcode::OUTPUT;
  out.rows = 4;
  out.cols = 4;
  out.sp_row = 16;
  out.dtype = t;
  const auto o = pb.emit(out);
  pb.emit(dma(Opcode::DMA_STORE, 4, store_bytes, 16, kOut), {o});
  return pb.take();
}

}  // namespace

TEST_CASE("rtl tile output stage: int8 with rounding shift and saturation, ReLU, raw int32") {
  SparseMemory image;
  std::vector<std::uint8_t> x(16), w(16);
  for (int i = 0; i < 16; ++i) {
    x[i] = static_cast<std::uint8_t>(i * 53 + 7);
    w[i] = static_cast<std::uint8_t>(i * 29 + 101);
  }
  put_rows(image, kIn, 4, 4, x);
  put_rows(image, kW, 4, 4, w);
  for (const bool relu : {false, true}) {
    for (const std::uint8_t shift : {0, 3, 9}) {
      Instr s;
      s.convert = true;
      s.relu = relu;
      s.shift = shift;
      const auto r = run(image, matmul_program(DType::kInt8, s, 4), {{"Y", {kOut, 4, 4, 4, 1, 32}, DType::kInt8}});
      INFO("relu " << relu << " shift " << int(shift) << ": " << why(r));
      CHECK(r.passed);
    }
  }
  Instr raw;
  raw.relu = true;
  const auto r = run(image, matmul_program(DType::kInt8, raw, 16), {{"Y", {kOut, 4, 4, 4, 4, 32}, DType::kInt8}});
  INFO(why(r));
  CHECK(r.passed);
}

TEST_CASE("rtl tile bf16: specials (NaN, infinities, subnormals, ties) and conversion to bf16") {
  SparseMemory image;
  // bf16 operands with special values among ordinary ones.
  const std::uint16_t xs[16] = {0x3f80, 0x7f80, 0x0001, 0xbf80,   // 1, +inf, subnormal, -1
                                0x7fc1, 0x4000, 0x3f81, 0x3f80,   // NaN, 2, 1.0078125, 1
                                0x0000, 0x8000, 0xff80, 0x4b80,   // +0, -0, -inf, 2^24
                                0x3380, 0x3380, 0x4b80, 0xcb80};  // 2^-24 (tie material), 2^24, -2^24
  const std::uint16_t ws[16] = {0x3f80, 0x3f80, 0x3f80, 0x3f80, 0x0000, 0x3f80, 0x4000, 0xbf80,
                                0x3f80, 0x0080, 0x3f80, 0x3f80, 0x3f80, 0x3f80, 0x3f80, 0x3f80};
  std::vector<std::uint8_t> x(32), w(32);
  std::memcpy(x.data(), xs, 32);
  std::memcpy(w.data(), ws, 32);
  put_rows(image, kIn, 4, 8, x);
  put_rows(image, kW, 4, 8, w);
  Instr raw;
  auto r = run(image, matmul_program(DType::kBf16, raw, 16), {{"Y", {kOut, 4, 4, 4, 4, 32}, DType::kBf16}});
  INFO(why(r));
  CHECK(r.passed);
  Instr narrow;
  narrow.convert = true;
  narrow.relu = true;
  r = run(image, matmul_program(DType::kBf16, narrow, 8), {{"Y", {kOut, 4, 4, 4, 2, 32}, DType::kBf16}});
  INFO(why(r));
  CHECK(r.passed);
}

TEST_CASE("rtl tile ici loopback: rows sent to its own scratchpad and added into its accumulators") {
  SparseMemory image;
  std::vector<std::uint8_t> x(16), w(16), extra(4 * 16);
  for (int i = 0; i < 16; ++i) {
    x[i] = static_cast<std::uint8_t>(i + 1);
    w[i] = static_cast<std::uint8_t>(3 * i - 20);
  }
  for (int i = 0; i < 64; ++i) extra[i] = static_cast<std::uint8_t>(i * 7);
  put_rows(image, kIn, 4, 4, x);
  put_rows(image, kW, 4, 4, w);
  put_rows(image, kIn + 0x1000, 4, 16, extra);
  for (const double bp : {0.0, 0.4}) {
    ProgramBuilder pb;
    const auto lx = pb.emit(dma(Opcode::DMA_LOAD, 4, 4, 0, kIn));
    const auto lw = pb.emit(dma(Opcode::DMA_LOAD, 4, 4, 8, kW));
    const auto le = pb.emit(dma(Opcode::DMA_LOAD, 4, 16, 24, kIn + 0x1000));
    // Send X to scratchpad rows 40.. of this chip, wait for it, multiply the copy.
    Instr send;
    send.op = Opcode::ICI_SEND;
    send.rows = 4;
    send.cols = 4;
    send.sp_row = 0;
    send.remote_row = 40;
    const auto s1 = pb.emit(send, {lx});
    Instr wait;
    wait.op = Opcode::ICI_WAIT;
    wait.rows = 4;
    const auto w1 = pb.emit(wait, {s1});
    pb.emit(compute(Opcode::LOAD_WEIGHTS, 4, 4, 8, DType::kInt8), {lw});
    const auto mm = pb.emit(compute(Opcode::MATMUL, 4, 4, 40, DType::kInt8), {w1});
    // Add the extra rows (4 int32 each) into accumulator rows 0..3 over the ICI.
    Instr add = send;
    add.sp_row = 24;
    add.cols = 12;  // only the first three elements
    add.remote_row = 0;
    add.to_acc = true;
    // The MATMUL is complete once its last vector entered the array; its results reach the
    // accumulators ROWS + COLS cycles later: the FENCE waits for them before the add goes out.
    Instr fence;
    fence.op = Opcode::FENCE;
    pb.emit(fence);
    const auto s2 = pb.emit(add, {le, mm});
    const auto w2 = pb.emit(wait, {s2});
    Instr out = compute(Opcode::OUTPUT, 4, 4, 16, DType::kInt8);
    const auto o = pb.emit(out, {w2});
    pb.emit(dma(Opcode::DMA_STORE, 4, 16, 16, kOut), {o});
    const auto r = run(image, pb.take(), {{"Y", {kOut, 4, 4, 4, 4, 32}, DType::kInt8}}, bp);
    INFO("backpressure " << bp << ": " << why(r));
    CHECK(r.passed);
  }
}

TEST_CASE("rtl tile: a FENCE waits for the array to drain, so an ICI add lands after the MATMUL's write-back") {
  // One vector into accumulator row 0 (overwrite), then row 0 + the ICI row: X . W + E. With the
  // FENCE dispatched as soon as the MATMUL completed, the add arrived before the write-back, which
  // overwrote it (the reference's X . W + E against the RTL's X . W). In bf16 the add is an fp32
  // sum in the accumulators, on random bits (NaN, infinities, subnormals and signed zeros among them).
  for (const DType t : {DType::kInt8, DType::kBf16}) {
    const std::string dt = t == DType::kBf16 ? "bf16" : "int8";
    const std::uint16_t eb = t == DType::kBf16 ? 2 : 1;
    const std::string text =
        "dma_load rows=1 cols=" + std::to_string(4 * eb) + " sp_row=0 hbm_addr=0x10000 hbm_stride=32\n" +
        "dma_load rows=4 cols=" + std::to_string(4 * eb) + " sp_row=8 hbm_addr=0x20000 hbm_stride=32\n" +
        "dma_load rows=1 cols=16 sp_row=20 hbm_addr=0x10020 hbm_stride=32\n" +
        "load_weights rows=4 cols=4 sp_row=8 dtype=" + dt + " buf=0 wait_dma=0\n" +
        "matmul rows=1 cols=4 sp_row=0 acc_row=0 dtype=" + dt + " buf=0\n" +
        "fence\n" +
        "ici_send rows=1 cols=16 sp_row=20 dst_chip=0 remote_row=0 to_acc dtype=" + dt + "\n" +
        "ici_wait rows=1\n" +
        "output rows=1 cols=4 sp_row=30 acc_row=0 dtype=" + dt + " wait_ici=0\n" +
        "dma_store rows=1 cols=16 sp_row=30 hbm_addr=0x30000 hbm_stride=32 wait_compute=0\n";
    std::istringstream in(text);
    const Program p = parse_program(in, "fence_drain.s");
    for (const std::uint64_t seed : {1, 2, 3}) {
      SparseMemory image;
      std::mt19937_64 gen(seed);
      std::vector<std::uint8_t> x(4 * eb), w(16 * eb), e(16);
      for (auto* v : {&x, &w, &e})
        for (std::uint8_t& b : *v) b = static_cast<std::uint8_t>(gen());
      put_rows(image, kIn, 1, 4 * eb, x);
      put_rows(image, kW, 4, 4 * eb, w);
      put_rows(image, kIn + 0x20, 1, 16, e);
      for (const std::uint64_t latency : {1'000, 20'000, 100'000}) {
        const auto r = run(image, p, {{"Y", {kOut, 1, 4, 4, 4, 32}, t}}, 0, latency);
        INFO(dt << ", seed " << seed << ", memory latency " << latency << " ps: " << why(r));
        CHECK(r.passed);
      }
    }
  }
}

TEST_CASE("rtl tile raises its error output on an unknown opcode") {
  SparseMemory image;
  Instr bad;
  bad.op = static_cast<Opcode>(15);
  const auto r = run(image, {bad}, {});
  CHECK_FALSE(r.passed);
  CHECK_THAT(r.error, Catch::Contains("error output"));
}

TEST_CASE("rtl tile sizes: asking for one the build lacks names those it has") {
  CHECK_THROWS_WITH(rtl_tile_geometry(3, 5), Catch::Contains("no RTL of a 3x5 array") && Catch::Contains("4x4"));
}
