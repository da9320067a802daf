// Speed of the performance model (ModelTile) against RTL co-simulation
// (RtlTile) of the same GEMM program on the same memory, on every verilated
// array size of the build, and the wall time of a 1024 x 1024 x 1024 bf16
// GEMM on a 128x128 array on the model alone.
// Prints measured numbers; run on demand: model_bench [m k n] [--model-only]
// (--model-only skips the RTL runs, for profiling the model).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bridge/rtl_tile.h"
#include "cosim/kernel.h"
#include "models/core/ideal_memory.h"
#include "models/mxu/gemm_program.h"
#include "models/mxu/model_tile.h"

using namespace mxc;

namespace {

struct Measured {
  std::uint64_t cycles = 0;
  double seconds = 0;
  bool finished = false;
};

Measured run(Tile& tile, IdealMemory& mem, const Program& p) {
  const auto t0 = std::chrono::steady_clock::now();
  tile.load_program(p);
  Kernel k;
  k.add(tile);
  k.add(mem);
  k.run([&] {
    auto& q = tile.outbound();
    while (!q.empty()) {
      tile.push_inbound(std::move(q.front()));
      q.pop_front();
    }
    return tile.finished();
  });
  Measured m;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.cycles = tile.cycles();
  m.finished = tile.finished();
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  GemmShape s{64, 64, 64, DType::kBf16};
  bool model_only = false;
  if (argc >= 2 && std::string(argv[argc - 1]) == "--model-only") {
    model_only = true;
    --argc;
  }
  if (argc == 4) {
    s.m = static_cast<std::uint32_t>(std::atoi(argv[1]));
    s.k = static_cast<std::uint32_t>(std::atoi(argv[2]));
    s.n = static_cast<std::uint32_t>(std::atoi(argv[3]));
  }
  const Time latency = 100'000;  // 100 ns
  for (const auto& [rows, cols] : rtl_tile_sizes()) {
    const TileGeometry geo = rtl_tile_geometry(rows, cols);
    const Program p = compile_gemm(s, place_gemm(s, geo), geo);

    IdealMemory rtl_mem("mem", latency);
    RtlTileConfig rc;
    rc.rows = rows;
    rc.cols = cols;
    Measured r;
    if (!model_only) {
      auto rtl = make_rtl_tile(rc, rtl_mem);
      r = run(*rtl, rtl_mem, p);
    }

    ModelTileConfig mc;
    mc.geometry = geo;
    const int reps = 20;  // the model is fast: repeat for a measurable time
    Measured m;
    std::uint64_t evaluated = 0;
    for (int i = 0; i < reps; ++i) {
      IdealMemory mm("mem", latency);
      ModelTile t(mc, mm);
      const Measured one = run(t, mm, p);
      m.cycles = one.cycles;
      m.finished = one.finished;
      m.seconds += one.seconds / reps;
      evaluated = t.evaluated_cycles();
    }
    std::printf("gemm %ux%ux%u %s on a %ux%u array, ideal memory %llu ns, %zu instructions\n", s.m, s.k, s.n,
                std::string(to_string(s.dtype)).c_str(), rows, cols, static_cast<unsigned long long>(latency / 1000),
                p.size());
    if (!model_only)
      std::printf("  rtl   cycles %llu  wall %.4f s  %.0f cycles/s%s\n", static_cast<unsigned long long>(r.cycles),
                  r.seconds, r.cycles / r.seconds, r.finished ? "" : "  (did not finish)");
    std::printf("  model cycles %llu (%llu evaluated)  wall %.6f s  %.0f cycles/s%s\n",
                static_cast<unsigned long long>(m.cycles), static_cast<unsigned long long>(evaluated), m.seconds,
                m.cycles / m.seconds, m.finished ? "" : "  (did not finish)");
    if (!model_only)
      std::printf("  speed ratio model/rtl: %.0fx  (cycles %s)\n", (m.cycles / m.seconds) / (r.cycles / r.seconds),
                r.cycles == m.cycles ? "identical" : "DIFFER");
  }

  // The large case on the model alone.
  TileGeometry big;
  big.rows = big.cols = 128;
  const GemmShape bs{1024, 1024, 1024, DType::kBf16};
  const Program bp = compile_gemm(bs, place_gemm(bs, big), big);
  IdealMemory bm("mem", latency);
  ModelTileConfig bc;
  bc.geometry = big;
  ModelTile bt(bc, bm);
  const Measured b = run(bt, bm, bp);
  std::printf("model gemm 1024x1024x1024 bf16 on 128x128: %zu instructions, cycles %llu (%llu evaluated), wall %.3f s%s\n",
              bp.size(), static_cast<unsigned long long>(b.cycles),
              static_cast<unsigned long long>(bt.evaluated_cycles()), b.seconds, b.finished ? "" : "  (did not finish)");
  return 0;
}
