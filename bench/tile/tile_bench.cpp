// tile_bench: how fast the verilated tile simulates, and what the rest of a
// co-simulation costs on top.
//
//   bare:  the RTL tile on an ideal memory (no performance model beside it)
//   full:  the RTL tile on HBM2 with the performance model, timing
//          correlation, handshake checker and data scoreboard
// For each verilated size and data type it prints simulated cycles per
// second of the process's CPU time, PE updates per second (cycles x rows x
// cols), and the full/bare speed ratio measured side by side in this run;
// also both rates per wall-clock second; bare and full runs alternate, best of
// --repeat each. The full run's model shadow runs on a
// second thread (--threads 2, the default): its CPU time counts, its wall time
// overlaps the RTL's when a core is free. On an idle machine the bare wall rate
// equals its CPU rate; other processes sharing the cores lower both wall rates.
// Usage: tile_bench [--m M] [--k K] [--n N] [--repeat R] [--size RxC] [--dtype int8|bf16] [--only bare|full]
//                   [--threads 1|2] [--shadow-memory auto|replay|simulate] [--bare-memory ideal|hbm]
//   --shadow-memory: how the full run's shadow works out its memories (SystemRunOptions).
//   --bare-memory hbm: the bare run on the full run's HBM (still no model, no timing
//     correlation), so that full/bare is what the model and its checks cost alone, without
//     the HBM model and the tile's own slower run on a memory of varying latency.
//   --size, --dtype and --only restrict the run (for a profiler); the ratio needs both runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/cpu_time.h"
#include "bridge/rtl_tile.h"
#include "cosim/system_run.h"

using namespace mxc;

namespace {

struct Speed {
  double cycles_per_s = 0;       // per CPU second
  double wall_cycles_per_s = 0;  // per wall-clock second
  std::uint64_t cycles = 0;
};

// One run, folded into the best so far, by CPU time and by wall time separately.
void measure(const SystemRunOptions& o, Speed& best) {
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = bench::process_cpu_seconds();
  const SystemRunResult r = run_system(o);
  const double c = bench::process_cpu_seconds() - c0;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.passed) {
    std::fprintf(stderr, "tile_bench: run failed: %s\n", r.error.c_str());
    std::exit(1);
  }
  best.cycles = r.rtl_cycles;
  best.cycles_per_s = std::max(best.cycles_per_s, static_cast<double>(r.rtl_cycles) / c);
  best.wall_cycles_per_s = std::max(best.wall_cycles_per_s, static_cast<double>(r.rtl_cycles) / s);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint32_t m = 256, k = 0, n = 0;
  int repeat = 3;
  int threads = 2;
  std::string shadow_memory = "auto";
  std::string bare_memory = "ideal";
  std::string size, only, dtype_only;
  if (argc % 2 == 0) {
    std::fprintf(stderr, "tile_bench: option '%s' needs a value\n", argv[argc - 1]);
    return 2;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--m")) m = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--k")) k = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--n")) n = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--repeat")) repeat = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--size")) size = argv[i + 1];
    else if (!std::strcmp(argv[i], "--dtype")) dtype_only = argv[i + 1];
    else if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
    else if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--shadow-memory")) shadow_memory = argv[i + 1];
    else if (!std::strcmp(argv[i], "--bare-memory")) bare_memory = argv[i + 1];
    else {
      std::fprintf(stderr, "tile_bench: unknown option '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!dtype_only.empty() && dtype_only != "int8" && dtype_only != "bf16") {
    std::fprintf(stderr, "tile_bench: --dtype must be int8 or bf16, not '%s'\n", dtype_only.c_str());
    return 2;
  }
  if (!only.empty() && only != "bare" && only != "full") {
    std::fprintf(stderr, "tile_bench: --only must be bare or full, not '%s'\n", only.c_str());
    return 2;
  }
  if (shadow_memory != "auto" && shadow_memory != "replay" && shadow_memory != "simulate") {
    std::fprintf(stderr, "tile_bench: --shadow-memory must be auto, replay or simulate, not '%s'\n",
                 shadow_memory.c_str());
    return 2;
  }
  if (bare_memory != "ideal" && bare_memory != "hbm") {
    std::fprintf(stderr, "tile_bench: --bare-memory must be ideal or hbm, not '%s'\n", bare_memory.c_str());
    return 2;
  }
  if (threads != 1 && threads != 2) {
    std::fprintf(stderr, "tile_bench: --threads must be 1 or 2, not %d\n", threads);
    return 2;
  }
  std::printf("rates per CPU second of this process (wall: per wall-clock second); bare run on %s memory\n",
              bare_memory == "hbm" ? "the HBM2" : "an ideal");
  // Rates are per simulated cycle; the full run simulates more cycles (memory latency), so
  // "time f/b" is the ratio of CPU time per run, what a user waits for.
  std::printf("%-7s %-5s %10s %10s %14s %16s %14s %10s %16s %16s %10s %10s\n", "array", "dtype", "bare cyc",
              "full cyc", "bare cyc/s", "bare PE upd/s", "full cyc/s", "full/bare", "bare wall cyc/s",
              "full wall cyc/s", "wall f/b", "time f/b");
  for (const auto& [rows, cols] : rtl_tile_sizes()) {
    if (!size.empty() && size != std::to_string(rows) + "x" + std::to_string(cols)) continue;
    for (const DType dtype : {DType::kInt8, DType::kBf16}) {
      if (!dtype_only.empty() && dtype_only != to_string(dtype)) continue;
      SystemRunOptions bare;
      bare.system.rows = rows;
      bare.system.cols = cols;
      bare.system.ideal_latency_ps = 0;
      bare.system.compare_model = false;
      bare.workload.shape = {m, k ? k : 4 * rows, n ? n : 4 * cols, dtype};
      SystemRunOptions full = bare;
      full.system.memory = "hbm";
      full.system.hbm_config = std::string(MXCOSIM_SOURCE_DIR) + "/configs/hbm/hbm2.yaml";
      full.system.compare_model = true;
      if (bare_memory == "hbm") {
        bare.system.memory = full.system.memory;
        bare.system.hbm_config = full.system.hbm_config;
      }
      full.shadow_thread = threads == 2;
      full.shadow_memory = shadow_memory == "replay"     ? SystemRunOptions::ShadowMemory::kReplay
                           : shadow_memory == "simulate" ? SystemRunOptions::ShadowMemory::kSimulate
                                                         : SystemRunOptions::ShadowMemory::kAuto;
      // Best of `repeat` each, bare and full alternated so that a change in the machine's load
      // falls on both.
      Speed b, f;
      for (int i = 0; i < repeat; ++i) {
        if (only != "full") measure(bare, b);
        if (only != "bare") measure(full, f);
      }
      // A ratio needs both runs (--only runs one): "-" for it.
      const auto ratio = [&](double num, double den) {
        char buf[32];
        if (only.empty() && den > 0) std::snprintf(buf, sizeof buf, "%.2f", num / den);
        else std::snprintf(buf, sizeof buf, "-");
        return std::string(buf);
      };
      const double bare_time = b.cycles_per_s > 0 ? static_cast<double>(b.cycles) / b.cycles_per_s : 0;
      const double full_time = f.cycles_per_s > 0 ? static_cast<double>(f.cycles) / f.cycles_per_s : 0;
      std::printf("%3ux%-3u %-5s %10llu %10llu %14.0f %16.3g %14.0f %10s %16.0f %16.0f %10s %10s\n", rows, cols,
                  to_string(dtype).data(), static_cast<unsigned long long>(b.cycles),
                  static_cast<unsigned long long>(f.cycles), b.cycles_per_s, b.cycles_per_s * rows * cols,
                  f.cycles_per_s, ratio(f.cycles_per_s, b.cycles_per_s).c_str(), b.wall_cycles_per_s,
                  f.wall_cycles_per_s, ratio(f.wall_cycles_per_s, b.wall_cycles_per_s).c_str(),
                  ratio(full_time, bare_time).c_str());
    }
  }
  return 0;
}
