// Speed of the performance model (ModelTile) against RTL co-simulation
// (RtlTile) of the same GEMM program on the same memory, on every verilated
// array size of the build, measured side by side in one run, and the time
// of a 1024 x 1024 x 1024 bf16 GEMM on a 128x128 array on the model alone. Times are the process's CPU time (not wall time: on a shared
// machine wall time mostly measures the other processes), each the best of
// several repetitions.
// Prints measured numbers; run on demand: model_bench [m k n] [--model-only]
// (--model-only skips the RTL runs, for profiling the model).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/cpu_time.h"
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
  std::uint64_t evaluated = 0;
  double rate() const { return seconds > 0 ? static_cast<double>(cycles) / seconds : 0; }
};

Measured run(Tile& tile, IdealMemory& mem, const Program& p) {
  const double t0 = bench::process_cpu_seconds();
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
  m.seconds = bench::process_cpu_seconds() - t0;
  m.cycles = tile.cycles();
  m.finished = tile.finished();
  return m;
}

const Time kLatency = 100'000;  // 100 ns

Measured best_rtl(std::uint32_t rows, std::uint32_t cols, const Program& p, int reps) {
  Measured best;
  for (int i = 0; i < reps; ++i) {
    IdealMemory mem("mem", kLatency);
    RtlTileConfig rc;
    rc.rows = rows;
    rc.cols = cols;
    auto rtl = make_rtl_tile(rc, mem);
    const Measured m = run(*rtl, mem, p);
    if (i == 0 || m.seconds < best.seconds) best = m;
  }
  return best;
}

/// Repeats until `min_seconds` of runs (at least 5) and keeps the fastest.
Measured best_model(const TileGeometry& geo, const Program& p, bool skip_idle, double min_seconds) {
  ModelTileConfig mc;
  mc.geometry = geo;
  mc.skip_idle = skip_idle;
  Measured best;
  double total = 0;
  for (int i = 0; i < 5 || total < min_seconds; ++i) {
    IdealMemory mem("mem", kLatency);
    mem.set_timing_only(true);  // the model carries no data (as in mxcosim model)
    ModelTile t(mc, mem);
    Measured m = run(t, mem, p);
    m.evaluated = t.evaluated_cycles();
    total += m.seconds;
    if (i == 0 || m.seconds < best.seconds) best = m;
  }
  return best;
}

const char* unfinished(const Measured& m) { return m.finished ? "" : "  (did not finish)"; }

struct Row {
  std::uint32_t rows, cols;
  std::uint64_t cycles;
  double rtl_rate, model_rate, exact_rate;
};

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
  std::vector<Row> table;
  for (const auto& [rows, cols] : rtl_tile_sizes()) {
    const TileGeometry geo = rtl_tile_geometry(rows, cols);
    const Program p = compile_gemm(s, place_gemm(s, geo), geo);
    const Measured r = model_only ? Measured{} : best_rtl(rows, cols, p, 3);
    const Measured m = best_model(geo, p, true, 0.2);
    const Measured e = best_model(geo, p, false, 0.1);  // every cycle evaluated, for reference
    std::printf("gemm %ux%ux%u %s on a %ux%u array, ideal memory %llu ns, %zu instructions\n", s.m, s.k, s.n,
                std::string(to_string(s.dtype)).c_str(), rows, cols,
                static_cast<unsigned long long>(kLatency / 1000), p.size());
    if (!model_only)
      std::printf("  rtl   cycles %llu  cpu %.4f s  %.0f cycles/s%s\n", static_cast<unsigned long long>(r.cycles),
                  r.seconds, r.rate(), unfinished(r));
    std::printf("  model cycles %llu (%llu evaluated)  cpu %.6f s  %.0f cycles/s%s\n",
                static_cast<unsigned long long>(m.cycles), static_cast<unsigned long long>(m.evaluated), m.seconds,
                m.rate(), unfinished(m));
    std::printf("  model, every cycle evaluated: cpu %.6f s  %.0f cycles/s  (fast path %.1fx faster)\n", e.seconds,
                e.rate(), e.seconds / m.seconds);
    if (!model_only)
      std::printf("  speed ratio model/rtl: %.0fx  (cycles %s)\n", m.rate() / r.rate(),
                  r.cycles == m.cycles ? "identical" : "DIFFER");
    table.push_back({rows, cols, m.cycles, r.rate(), m.rate(), e.rate()});
  }
  if (!model_only) {
    std::printf("\narray   cycles   rtl cycles/s   model cycles/s   model/rtl   >= 1000x\n");
    for (const Row& t : table)
      std::printf("%3ux%-3u %7llu %14.0f %16.0f %10.0fx   %s\n", t.rows, t.cols,
                  static_cast<unsigned long long>(t.cycles), t.rtl_rate, t.model_rate, t.model_rate / t.rtl_rate,
                  t.model_rate >= 1000 * t.rtl_rate ? "yes" : "no");
  }

  // The large case on the model alone.
  TileGeometry big;
  big.rows = big.cols = 128;
  const GemmShape bs{1024, 1024, 1024, DType::kBf16};
  const Program bp = compile_gemm(bs, place_gemm(bs, big), big);
  IdealMemory bm("mem", kLatency);
  bm.set_timing_only(true);
  ModelTileConfig bc;
  bc.geometry = big;
  ModelTile bt(bc, bm);
  const Measured b = run(bt, bm, bp);
  std::printf("\nmodel gemm 1024x1024x1024 bf16 on 128x128: %zu instructions, cycles %llu (%llu evaluated), cpu %.3f s%s\n",
              bp.size(), static_cast<unsigned long long>(b.cycles),
              static_cast<unsigned long long>(bt.evaluated_cycles()), b.seconds, unfinished(b));
  return 0;
}
