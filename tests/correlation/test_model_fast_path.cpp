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
  CHECK(fast.log.masks == slow.log.masks);
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

namespace {

/// DMA loads whose rows span several beats (wider than a scratchpad row:
/// outside the data contract, defined in timing), split at 4 KiB and at 256
/// beats, while OUTPUT rows and inbound ICI rows compete for the scratchpad
/// write port and a store follows.
Program wide_row_program() {
  ProgramBuilder pb;
  const auto l0 = pb.emit(dma(Opcode::DMA_LOAD, 4, 16, 0, 0x10000));
  pb.emit(dma(Opcode::DMA_LOAD, 20, 96, 10, 0x10fc0, 4096 + 64));  // each row crosses 4 KiB: 2 + 1 beats
  pb.emit(dma(Opcode::DMA_LOAD, 2, 9000, 40, 0x20000, 12288));     // 282 beats: 128 + 128 + 26
  const auto s = pb.emit(send(4, 16, 0, 60, false), {l0});
  pb.emit(make(Opcode::LOAD_WEIGHTS, 4, 4, 0), {l0});
  pb.emit(make(Opcode::MATMUL, 4, 4, 0));
  pb.emit(dma(Opcode::DMA_LOAD, 40, 512, 70, 0x30000, 512));       // 16-beat rows while OUTPUT writes
  pb.emit(make(Opcode::OUTPUT, 4, 4, 120));
  pb.emit(make(Opcode::ICI_WAIT, 4, 0, 0), {s});
  pb.emit(dma(Opcode::DMA_LOAD, 33, 256, 130, 0x50000, 256));
  pb.emit(dma(Opcode::DMA_STORE, 12, 200, 0, 0x70fe0, 4096 + 32));
  pb.emit(dma(Opcode::DMA_LOAD, 17, 64, 170, 0x80000, 64));
  return pb.take();
}

}  // namespace

TEST_CASE("model fast path: R data streams of multi-beat bursts on ideal, limited and HBM memories") {
  const Program p = wide_row_program();
  const std::vector<MemorySpec> mems = {ideal(0),         ideal(3'000),         ideal(40'000),
                                        ideal(150'000, 8), ideal(90'000, 2),     hbm_memory("hbm2.yaml"),
                                        hbm_memory("hbm3.yaml")};
  for (const auto& mem : mems)
    for (const bool first : {false, true}) {
      INFO(mem.label << (first ? ", memory registered first" : ""));
      Wiring w;
      w.memory_first = first;
      check_fast_path(square(4), mem, p, w);
      w.drain_every = 7;  // inbound rows arrive late and in bunches
      check_fast_path(square(4), mem, p, w);
    }
}

TEST_CASE("model fast path: GEMMs and an MLP on wide arrays (bursts of 2 to 16 beats), int8 and bf16") {
  const std::vector<MemorySpec> mems = {ideal(0), ideal(100'000), ideal(150'000, 8), hbm_memory("hbm2.yaml")};
  for (const auto& mem : mems) {
    for (const std::uint32_t n : {64u, 128u})
      for (const DType t : {DType::kInt8, DType::kBf16}) {
        const GemmShape s{200, 256, 136, t};
        INFO(n << "x" << n << " array, " << mem.label << ", " << to_string(t));
        check_fast_path(square(n), mem, compile_gemm(s, place_gemm(s, square(n)), square(n)));
      }
    for (const std::uint32_t n : {16u, 32u}) {
      TileGeometry g = square(n);
      g.acc_rows = 64;
      g.sp_rows = 256;
      const MlpShape s{70, 48, 40, 24, DType::kBf16, 0};
      INFO(n << "x" << n << " array, " << mem.label << ", mlp bf16");
      check_fast_path(g, mem, compile_mlp(s, place_mlp(s, g), g));
    }
  }
}

namespace {

/// Chip 0 sends rows to chip 1 (into its scratchpad, competing with its
/// DMA's writes) while chip 1 streams multi-beat loads.
TwoChipRun run_two_chips(bool skip, const MemorySpec& spec) {
  ProgramBuilder p0, p1;
  const auto l = p0.emit(dma(Opcode::DMA_LOAD, 8, 16, 0, 0x10000));
  Instr s = send(8, 16, 0, 300, false);
  s.dst_chip = 1;
  p0.emit(s, {l});
  const auto la = p1.emit(dma(Opcode::DMA_LOAD, 40, 256, 0, 0x20000, 256));
  const auto lb = p1.emit(dma(Opcode::DMA_LOAD, 12, 512, 100, 0x40000, 4096 + 512));
  p1.emit(make(Opcode::ICI_WAIT, 8, 0, 0), {la, lb});
  p1.emit(dma(Opcode::DMA_STORE, 8, 96, 300, 0x50000, 96));
  return run_two_model_chips(p0.take(), p1.take(), square(4), spec, spec, 7'777, true, skip);
}

}  // namespace

TEST_CASE("model fast path: two chips, rows arriving while the receiver streams multi-beat loads") {
  for (const auto& mem : {ideal(30'000), ideal(120'000, 4), hbm_memory("hbm2.yaml")}) {
    INFO(mem.label);
    const TwoChipRun exact = run_two_chips(false, mem);
    const TwoChipRun fast = run_two_chips(true, mem);
    CHECK(fast.evaluated < exact.evaluated);
    for (int c = 0; c < 2; ++c) {
      INFO("chip " << c);
      CHECK(fast.perf[c] == exact.perf[c]);
      CHECK(fast.requests[c] == exact.requests[c]);
      CHECK(fast.masks[c] == exact.masks[c]);
      REQUIRE(fast.events[c].size() == exact.events[c].size());
      for (std::size_t i = 0; i < exact.events[c].size(); ++i) {
        INFO("instruction #" << i);
        CHECK(fast.events[c][i].start == exact.events[c][i].start);
        CHECK(fast.events[c][i].end == exact.events[c][i].end);
      }
    }
  }
}

TEST_CASE("model fast path: the beats of an R data stream are not evaluated one by one") {
  // 64 rows of 16 beats: 1,024 beats, at most one per cycle. Evaluating each
  // beat's cycle would take at least that many evaluations.
  ProgramBuilder pb;
  pb.emit(dma(Opcode::DMA_LOAD, 64, 512, 0, 0x10000, 512));
  const Program p = pb.take();
  const ModelRun fast = run_model(square(4), ideal(100'000), p, {}, true);
  REQUIRE(fast.log.finished);
  CHECK(fast.evaluated * 4 < 64 * 16);
}

TEST_CASE("model fast path: a load's read drain is not evaluated beat by beat") {
  // 16 one-beat rows: all 16 addresses go out first (16 IDs), one evaluated
  // cycle each as every one makes a request; then the 16 data beats come back
  // one per cycle with nothing else to do, which need not be evaluated: fewer
  // evaluations than addresses plus beats, dispatch and completion included.
  ProgramBuilder pb;
  pb.emit(dma(Opcode::DMA_LOAD, 16, 32, 0, 0x10000));
  const Program p = pb.take();
  const ModelRun fast = run_model(square(4), ideal(100'000), p, {}, true);
  REQUIRE(fast.log.finished);
  CHECK(fast.evaluated < 16 + 16);
}

TEST_CASE("model fast path: a run stopped while the model sleeps counts the cycles slept through") {
  // A run stopped as hung stops the model where it sleeps, waiting on memory: stop_at() must
  // give the cycles and counters the cycle-by-cycle path has at that time, not those of the
  // cycle the fast path went to sleep in. The reads take 150 cycles; stops before, during
  // and after the wait, and between two edges.
  ProgramBuilder pb;
  const auto l = pb.emit(dma(Opcode::DMA_LOAD, 16, 16, 0, 0x10000));
  pb.emit(dma(Opcode::DMA_STORE, 16, 16, 0, 0x20000), {l});
  const Program p = pb.take();
  bool slept = false;
  for (const Time stop_ps : {Time{3'000}, Time{40'000}, Time{90'500}, Time{149'000}, Time{200'000}}) {
    INFO("stopped at " << stop_ps << " ps");
    std::vector<std::uint64_t> cycles;
    std::vector<std::vector<std::pair<std::string, std::uint64_t>>> perf;
    for (const bool fast : {false, true}) {
      auto mem = ideal(150'000).make();
      ModelTileConfig cfg;
      cfg.geometry = square(4);
      cfg.skip_idle = fast;
      ModelTile tile(cfg, *mem);
      tile.load_program(p);
      Kernel kernel;
      kernel.add(tile);
      kernel.add(*mem);
      // Every step before stop_ps, as the shadow of a hung run has taken when it stops.
      kernel.run([&] { return tile.finished(); }, stop_ps - 1);
      const std::uint64_t before = tile.cycles();
      tile.stop_at(stop_ps);
      slept = slept || tile.cycles() > before;
      cycles.push_back(tile.cycles());
      perf.push_back(tile.perf_counters());
    }
    CHECK(cycles[1] == cycles[0]);
    CHECK(perf[1] == perf[0]);
  }
  CHECK(slept);  // the fast path really was asleep at some stop
}
