// The model's fast path (skipping idle cycles, replaying the compute unit's
// streaming phases in one step) against its cycle-by-cycle path
// (skip_idle = false, every cycle evaluated): over several workloads, array
// shapes, memories and kernel orders, both must give the same per-instruction
// timing, memory requests, ICI rows, counters and cycle counts. The
// cycle-by-cycle path is itself checked against the RTL in test_correlation.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "models/core/ideal_memory.h"
#include "models/mxu/gemm_program.h"
#include "models/mxu/mlp_program.h"
#include "models/mxu/model_tile.h"
#include "models/mxu/program_builder.h"
#include "tests/correlation/run_harness.h"

using namespace mxc;
using namespace mxc::corr;

namespace {

struct ModelRun {
  RunLog log;
  std::uint64_t evaluated = 0;
};

ModelRun run_model(const TileGeometry& g, const MemorySpec& spec, const Program& p, const Wiring& w, bool fast) {
  auto mem = spec.make();
  LoggingMemory log(*mem);
  ModelTileConfig cfg;
  cfg.geometry = g;
  cfg.memory_first = w.memory_first;
  cfg.skip_idle = fast;
  ModelTile tile(cfg, log);
  ModelRun r;
  r.log = run_on(tile, log, log, p, w);
  r.evaluated = tile.evaluated_cycles();
  return r;
}

void check_fast_path(const TileGeometry& g, const MemorySpec& spec, const Program& p, const Wiring& w = {}) {
  const ModelRun slow = run_model(g, spec, p, w, false);
  const ModelRun fast = run_model(g, spec, p, w, true);
  REQUIRE(slow.log.finished);
  REQUIRE(fast.log.finished);
  CHECK(slow.evaluated == slow.log.cycles);  // the reference really evaluates every cycle
  CHECK(fast.log.cycles == slow.log.cycles);
  for (std::size_t i = 0; i < p.size(); ++i)
    if (fast.log.events[i].start != slow.log.events[i].start || fast.log.events[i].end != slow.log.events[i].end)
      FAIL("first differing instruction #" << i << " (" << describe(p[i]) << "): cycle by cycle start "
                                            << slow.log.events[i].start << " end " << slow.log.events[i].end
                                            << ", fast start " << fast.log.events[i].start << " end "
                                            << fast.log.events[i].end);
  CHECK(fast.log.requests == slow.log.requests);
  CHECK(fast.log.rows == slow.log.rows);
  CHECK(fast.log.perf == slow.log.perf);
}

TileGeometry square(std::uint32_t n) {
  TileGeometry g;
  g.rows = g.cols = n;
  return g;
}

}  // namespace

TEST_CASE("model fast path: compiled GEMMs on several arrays and memories match the cycle-by-cycle path") {
  const std::vector<MemorySpec> mems = {ideal(0), ideal(3'000), ideal(40'000), ideal(150'000, 8),
                                        hbm_memory("hbm2.yaml")};
  const std::vector<GemmShape> shapes = {{96, 64, 40, DType::kBf16},
                                         {33, 20, 3, DType::kInt8},
                                         {64, 64, 64, DType::kBf16},
                                         {13, 4, 6, DType::kBf16}};
  for (std::uint32_t n : {4u, 8u, 16u, 32u}) {
    const TileGeometry g = square(n);
    for (const auto& mem : mems)
      for (const auto& s : shapes) {
        INFO(n << "x" << n << " array, " << mem.label << ", gemm " << s.m << "x" << s.k << "x" << s.n << " "
               << to_string(s.dtype));
        check_fast_path(g, mem, compile_gemm(s, place_gemm(s, g), g));
      }
  }
}

TEST_CASE("model fast path: the memory registered first, and outbound rows taken late") {
  const TileGeometry g = square(8);
  const GemmShape s{40, 24, 16, DType::kBf16};
  const Program gemm = compile_gemm(s, place_gemm(s, g), g);
  Wiring first;
  first.memory_first = true;
  check_fast_path(g, ideal(3'000), gemm, first);
  check_fast_path(g, ideal(0), gemm, first);

  // ICI traffic between compute phases: rows loop back, taken every 13 cycles.
  ProgramBuilder pb;
  Instr load;
  load.op = Opcode::DMA_LOAD;
  load.rows = 12;
  load.cols = 32;
  load.hbm_addr = 0x10000;
  load.hbm_stride = 32;
  const auto l = pb.emit(load);
  Instr lw;
  lw.op = Opcode::LOAD_WEIGHTS;
  lw.rows = 8;
  lw.cols = 8;
  pb.emit(lw, {l});
  Instr mm = lw;
  mm.op = Opcode::MATMUL;
  mm.rows = 12;
  pb.emit(mm);
  Instr send;
  send.op = Opcode::ICI_SEND;
  send.rows = 12;
  send.cols = 32;
  send.remote_row = 100;
  const auto sd = pb.emit(send, {l});
  Instr out = lw;
  out.op = Opcode::OUTPUT;
  out.rows = 12;
  out.sp_row = 40;
  pb.emit(out);
  Instr wait;
  wait.op = Opcode::ICI_WAIT;
  wait.rows = 12;
  pb.emit(wait, {sd});
  Instr store = load;
  store.op = Opcode::DMA_STORE;
  store.sp_row = 40;
  store.hbm_addr = 0x50000;
  pb.emit(store);
  const Program ici = pb.take();
  Wiring late;
  late.drain_every = 13;
  for (const auto& mem : {ideal(0), ideal(25'000), ideal(90'000, 2)}) {
    INFO(mem.label);
    check_fast_path(g, mem, ici);
    check_fast_path(g, mem, ici, late);
  }
}

TEST_CASE("model fast path: an MLP program with stores between layers") {
  TileGeometry g = square(4);
  g.acc_rows = 16;
  g.sp_rows = 128;
  MlpShape s{37, 21, 13, 9, DType::kInt8, 9};
  const Program p = compile_mlp(s, place_mlp(s, g), g);
  for (const auto& mem : {ideal(0), ideal(60'000), ideal(200'000, 4)}) {
    INFO(mem.label);
    check_fast_path(g, mem, p);
  }
}

TEST_CASE("model fast path: cycles are actually skipped") {
  const TileGeometry g = square(16);
  const GemmShape s{64, 64, 64, DType::kBf16};
  const Program p = compile_gemm(s, place_gemm(s, g), g);
  const ModelRun fast = run_model(g, ideal(100'000), p, {}, true);
  REQUIRE(fast.log.finished);
  CHECK(fast.evaluated < fast.log.cycles / 2);
}
