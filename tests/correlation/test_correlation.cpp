// Correlation of the performance model (ModelTile) with the verilated RTL
// tile (RtlTile): each program runs on both, each on its own memory of the
// same kind, and the runs must agree exactly: every instruction's dispatch
// and completion cycle, every memory request (address, size, direction, issue
// and acceptance time), every ICI row emitted and every performance counter.
// The expectation is the RTL itself; nothing here is derived from the model.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "bridge/rtl_tile.h"
#include "cosim/kernel.h"
#include "models/core/ideal_memory.h"
#include "models/mxu/gemm_program.h"
#include "models/mxu/model_tile.h"
#include "models/mxu/program_builder.h"
#include "tests/correlation/run_harness.h"

using namespace mxc;
using namespace mxc::corr;

namespace {

Program gemm(std::uint32_t rows, std::uint32_t cols, GemmShape shape) {
  const TileGeometry geo = rtl_tile_geometry(rows, cols);
  return compile_gemm(shape, place_gemm(shape, geo), geo);
}

bool have_size(std::uint32_t r, std::uint32_t c) {
  for (auto [rr, cc] : rtl_tile_sizes())
    if (rr == r && cc == c) return true;
  return false;
}

}  // namespace

TEST_CASE("correlation: compiled GEMMs on ideal memories of several latencies") {
  const std::vector<MemorySpec> mems = {ideal(0), ideal(3'000), ideal(40'000), ideal(250'000), ideal(30'000, 2)};
  const std::vector<GemmShape> shapes = {{8, 8, 8, DType::kInt8},  {16, 12, 8, DType::kBf16},
                                         {5, 7, 9, DType::kInt8},  {13, 4, 6, DType::kBf16},
                                         {33, 20, 3, DType::kInt8}};
  int ran = 0;
  for (auto [r, c] : {std::pair{4u, 4u}, std::pair{8u, 8u}, std::pair{16u, 16u}}) {
    if (!have_size(r, c)) {
      WARN("no RTL of a " << r << "x" << c << " array in this build (MXCOSIM_RTL_SIZES): not compared");
      continue;
    }
    ++ran;
    for (const auto& mem : mems)
      for (const auto& s : shapes) {
        INFO(r << "x" << c << " array, " << mem.label << ", gemm " << s.m << "x" << s.k << "x" << s.n << " "
               << to_string(s.dtype));
        const Program p = gemm(r, c, s);
        check_same(run_both(r, c, mem, p), p);
      }
  }
  REQUIRE(ran > 0);
}

TEST_CASE("correlation: compiled GEMMs on the HBM model") {
  const GemmShape s{24, 16, 20, DType::kBf16};
  for (const char* preset : {"hbm2.yaml", "hbm3.yaml"}) {
    INFO(preset);
    const Program p = gemm(4, 4, s);
    check_same(run_both(4, 4, hbm_memory(preset), p), p);
  }
}

TEST_CASE("correlation: ICI loopback, waits, fences, partial stores, back-to-back compute") {
  ProgramBuilder pb;
  const auto lx = pb.emit(dma(Opcode::DMA_LOAD, 6, 4, 0, 0x10000));
  const auto lw = pb.emit(dma(Opcode::DMA_LOAD, 4, 4, 8, 0x20000, 4096));  // rows on separate 4 KiB pages
  pb.emit(make(Opcode::LOAD_WEIGHTS, 4, 4, 8), {lw});
  const auto mm = pb.emit(make(Opcode::MATMUL, 6, 4, 0), {lx});
  // Rows to its own scratchpad while the array works, and into the accumulators.
  const auto s1 = pb.emit(send(6, 4, 0, 100, false), {lx});
  const auto w1 = pb.emit(make(Opcode::ICI_WAIT, 6, 0, 0), {s1});
  const auto s2 = pb.emit(send(3, 16, 20, 0, true), {mm});
  pb.emit(make(Opcode::ICI_WAIT, 3, 0, 0), {s2});
  Instr out = make(Opcode::OUTPUT, 6, 4, 30);
  const auto o = pb.emit(out, {w1});
  pb.emit(dma(Opcode::DMA_STORE, 6, 13, 30, 0x30000), {o});  // partial last beat: WSTRB mask
  pb.emit(make(Opcode::FENCE, 0, 0, 0));
  pb.emit(make(Opcode::NOP, 0, 0, 0));
  const auto l2 = pb.emit(dma(Opcode::DMA_LOAD, 20, 32, 40, 0x40000, 64));
  pb.emit(make(Opcode::MATMUL, 20, 4, 40), {l2});
  pb.emit(make(Opcode::MATMUL, 20, 4, 40));
  pb.emit(make(Opcode::LOAD_WEIGHTS, 4, 4, 40));  // waits for buffer 0's vectors
  pb.emit(make(Opcode::OUTPUT, 20, 4, 80));       // waits for the array to drain
  const Program p = pb.take();
  for (const auto& mem : {ideal(0), ideal(10'000), ideal(120'000, 3)}) {
    INFO(mem.label);
    check_same(run_both(4, 4, mem, p), p);
  }
}

TEST_CASE("correlation: programs that end while the array drains") {
  // The run ends when the last vector's result is written back, after the
  // MATMUL itself completed: the model must not sleep past that edge.
  std::vector<Program> programs;
  {
    ProgramBuilder pb;
    pb.emit(make(Opcode::MATMUL, 1, 2, 0));
    programs.push_back(pb.take());
  }
  {
    ProgramBuilder pb;
    pb.emit(make(Opcode::LOAD_WEIGHTS, 2, 2, 0));
    pb.emit(make(Opcode::MATMUL, 2, 2, 0));
    programs.push_back(pb.take());
  }
  {
    ProgramBuilder pb;
    const auto l = pb.emit(dma(Opcode::DMA_LOAD, 8, 4, 0, 0x10000));
    pb.emit(make(Opcode::MATMUL, 8, 4, 0), {l});
    pb.emit(make(Opcode::FENCE, 0, 0, 0));
    programs.push_back(pb.take());
  }
  {
    ProgramBuilder pb;
    pb.emit(make(Opcode::MATMUL, 200, 4, 0));
    programs.push_back(pb.take());
  }
  {
    // A FENCE waits for the drain, and what follows it starts after: the model wakes at that edge.
    ProgramBuilder pb;
    pb.emit(make(Opcode::MATMUL, 8, 4, 0));
    pb.emit(make(Opcode::FENCE, 0, 0, 0));
    const auto l = pb.emit(dma(Opcode::DMA_LOAD, 2, 4, 20, 0x10000));
    pb.emit(make(Opcode::MATMUL, 2, 4, 20), {l});
    programs.push_back(pb.take());
  }
  for (std::size_t i = 0; i < programs.size(); ++i)
    for (const auto& mem : {ideal(0), ideal(10'000)}) {
      INFO("program " << i << ", " << mem.label);
      check_same(run_both(4, 4, mem, programs[i]), programs[i]);
    }
}

TEST_CASE("correlation: memory registered before the tile (completions at edge times)") {
  // 3 ns at 1 GHz: every completion lands exactly on a tile edge, where the
  // kernel order decides which edge sees it.
  const GemmShape s{12, 8, 8, DType::kInt8};
  const Program p = gemm(4, 4, s);
  Wiring w;
  w.memory_first = true;
  check_same(run_both(4, 4, ideal(3'000), p, w), p);
  check_same(run_both(4, 4, ideal(0), p, w), p);
}

TEST_CASE("correlation: outbound rows taken late (ICI credit stalls)") {
  ProgramBuilder pb;
  const auto l = pb.emit(dma(Opcode::DMA_LOAD, 12, 16, 0, 0x10000));
  const auto s1 = pb.emit(send(12, 16, 0, 200, false), {l});
  pb.emit(make(Opcode::ICI_WAIT, 12, 0, 0), {s1});
  const auto s2 = pb.emit(send(7, 16, 0, 4, true), {l});
  pb.emit(make(Opcode::ICI_WAIT, 7, 0, 0), {s2});
  pb.emit(dma(Opcode::DMA_STORE, 12, 32, 200, 0x50000));
  const Program p = pb.take();
  for (const std::uint64_t every : {11u, 17u}) {
    INFO("outbound taken every " << every << " cycles");
    Wiring w;
    w.drain_every = every;
    const Pair r = run_both(4, 4, ideal(20'000), p, w);
    check_same(r, p);
    CHECK(r.rtl.perf[9].second > 0);  // the credit stall really happened
  }
}

TEST_CASE("correlation: ICI_SEND streams one row per cycle to a port that is always ready") {
  // ICI_SEND of N rows takes N + 3 cycles from its dispatch (the event's start) to its done:
  //   s      dispatched: pushed into the ICI queue at the edge ending cycle s;
  //   s + 1  the queue head is visible and popped by the idle unit;
  //   s + 2  row 0 read from the scratchpad; row k in cycle s + 2 + k, one read per cycle, since
  //          with the port ready the buffer holds one row and one read is in flight (<= 2);
  //   +2     a row read in cycle c enters the output buffer at the edge ending c + 1 and is
  //          offered and taken in cycle c + 2, so row N - 1 leaves in s + N + 3, with done.
  // The loopback delivers each row to the tile's own scratchpad rows 512.. at once, and
  // drain_every = 1 empties the outbound queue every cycle: no credit stall.
  for (const std::uint16_t n : {1, 2, 3, 16, 64, 256}) {
    ProgramBuilder pb;
    const auto l = pb.emit(dma(Opcode::DMA_LOAD, n, 32, 0, 0x10000));
    const auto s = pb.emit(send(n, 32, 0, 512, false), {l});
    pb.emit(make(Opcode::ICI_WAIT, n, 0, 0), {s});
    const Program p = pb.take();
    INFO(n << " rows");
    const Pair r = run_both(4, 4, ideal(20'000), p);
    check_same(r, p);
    for (const RunLog* run : {&r.rtl, &r.model}) {
      INFO((run == &r.rtl ? "rtl" : "model"));
      REQUIRE(run->events.size() == 3);
      CHECK(run->events[1].end - run->events[1].start == n + 3u);
      CHECK(run->perf[9].second == 0);  // stall_ici_credits: the port took every row offered
      CHECK(run->rows.size() == n);
    }
  }
}

TEST_CASE("correlation: a DMA descriptor the hardware refuses completes at once and moves nothing") {
  // Past the instruction checks: addresses and strides not a multiple of the 32-byte beat, rows
  // of 0 bytes. The RTL raises its error output and issues no burst; the model keeps its timing.
  ProgramBuilder pb;
  pb.emit(dma(Opcode::DMA_LOAD, 2, 64, 0, 0x1ff0, 4096));  // inside the last beat before 4 KiB
  pb.emit(dma(Opcode::DMA_STORE, 3, 32, 0, 0x2000, 33));   // stride off the beat
  pb.emit(dma(Opcode::DMA_LOAD, 4, 0, 0, 0x3000));         // rows of 0 bytes
  pb.emit(dma(Opcode::DMA_STORE, 1, 0, 0, 0x4000));
  const auto l = pb.emit(dma(Opcode::DMA_LOAD, 2, 32, 8, 0x5000));  // a good one still runs
  pb.emit(dma(Opcode::DMA_STORE, 2, 32, 8, 0x6000), {l});
  const Program p = pb.take();
  const Pair r = run_both(4, 4, ideal(20'000), p);
  check_same(r, p);
  CHECK(r.rtl_error);
  // The first is dispatched in cycle s, accepted by the idle DMA at the edge ending s + 1 and
  // done in s + 2; each next one (queued meanwhile) is accepted the cycle after a done and done
  // the cycle after that, as a descriptor of 0 rows.
  CHECK(r.rtl.events[0].end - r.rtl.events[0].start == 2);
  for (std::size_t i = 1; i < 4; ++i) {
    INFO("refused descriptor #" << i);
    CHECK(r.rtl.events[i].end - r.rtl.events[i - 1].end == 2);
  }
  // Only the good load and store reach memory.
  REQUIRE(r.rtl.requests.size() == 4);
  for (const LoggedRequest& q : r.rtl.requests) CHECK(q.addr >= 0x5000);
}

TEST_CASE("correlation: multi-beat bursts, 4 KiB and 256-beat splits, concurrent scratchpad writers") {
  // Rows wider than a scratchpad row are outside the ISA's data contract but
  // fully defined in timing: they exercise multi-beat bursts on both paths.
  ProgramBuilder pb;
  const auto l0 = pb.emit(dma(Opcode::DMA_LOAD, 4, 16, 0, 0x10000));
  pb.emit(dma(Opcode::DMA_LOAD, 3, 96, 10, 0x10fc0, 4096 + 64));  // each row crosses 4 KiB: 2 + 1 beats
  pb.emit(dma(Opcode::DMA_LOAD, 2, 9000, 20, 0x20000, 12288));    // 282 beats: 128 + 128 + 26
  const auto s = pb.emit(send(4, 16, 0, 60, false), {l0});          // inbound rows compete for the scratchpad
  pb.emit(dma(Opcode::DMA_LOAD, 8, 64, 30, 0x30000, 64));
  pb.emit(make(Opcode::LOAD_WEIGHTS, 4, 4, 0), {l0});
  pb.emit(make(Opcode::MATMUL, 4, 4, 0));
  pb.emit(make(Opcode::OUTPUT, 4, 4, 70));                          // OUTPUT writes compete too
  pb.emit(dma(Opcode::DMA_LOAD, 6, 32, 80, 0x40000));
  pb.emit(make(Opcode::ICI_WAIT, 4, 0, 0), {s});
  pb.emit(dma(Opcode::DMA_STORE, 3, 200, 0, 0x50fe0, 4096 + 32));   // partial last beat, 4 KiB crossing
  pb.emit(dma(Opcode::DMA_STORE, 1, 9000, 0, 0x60000));
  pb.emit(dma(Opcode::DMA_STORE, 20, 7, 0, 0x70000, 32));
  const Program p = pb.take();
  for (const auto& mem : {ideal(0), ideal(25'000), ideal(90'000, 2)}) {
    INFO(mem.label);
    check_same(run_both(4, 4, mem, p), p);
  }
}

namespace {

TwoChipRun run_two_chips(bool skip, bool timed) {
  ProgramBuilder p0, p1;
  const auto l = p0.emit(dma(Opcode::DMA_LOAD, 8, 16, 0, 0x10000));
  Instr s = send(8, 16, 0, 300, false);
  s.dst_chip = 1;
  p0.emit(s, {l});
  // Rows arrive while these loads wait on memory (the tile sleeps); the wait
  // comes after them, so only exact arrival cycles keep the loads' timing.
  const auto la = p1.emit(dma(Opcode::DMA_LOAD, 40, 32, 0, 0x20000, 96));
  const auto lb = p1.emit(dma(Opcode::DMA_LOAD, 12, 32, 100, 0x40000));
  p1.emit(make(Opcode::ICI_WAIT, 8, 0, 0), {la, lb});
  p1.emit(dma(Opcode::DMA_STORE, 8, 16, 300, 0x50000));
  return run_two_model_chips(p0.take(), p1.take(), rtl_tile_geometry(4, 4), ideal(45'000), ideal(180'000), 12'345,
                             timed, skip);
}

}  // namespace

TEST_CASE("correlation: rows from another chip arriving while the model skips idle cycles") {
  const TwoChipRun exact = run_two_chips(false, true);
  const TwoChipRun skipped = run_two_chips(true, true);
  CHECK(skipped.evaluated < exact.evaluated);
  // run_two_chips' programs: chip 0 loads and sends; chip 1 loads twice, waits and stores.
  const std::size_t instructions[2] = {2, 4};
  for (int c = 0; c < 2; ++c) {
    INFO("chip " << c);
    REQUIRE(exact.events[c].size() == instructions[c]);
    REQUIRE(skipped.events[c].size() == instructions[c]);
    CHECK(skipped.perf[c] == exact.perf[c]);
    for (std::size_t i = 0; i < exact.events[c].size(); ++i) {
      INFO("instruction #" << i);
      CHECK(skipped.events[c][i].start == exact.events[c][i].start);
      CHECK(skipped.events[c][i].end == exact.events[c][i].end);
    }
  }
}
