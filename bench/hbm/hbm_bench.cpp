// hbm_bench: measures the HBM model against its bandwidth ceilings and its
// own speed. Run on demand:  hbm_bench [--requests N] [--repeat R] [--config FILE]
// Every row prints the measured bandwidth, the ceiling it is compared with and
// the ratio, and the speed in requests per CPU-second of this process: the
// best of R identical runs (results are deterministic; only host time
// varies on a shared machine). Wall time of that run is printed too, and the
// speed with the controllers' shortcuts off (MemoryConfig::fast_path,
// same results) and with every controller stepping in every cycle
// (MemoryConfig::every_cycle, the tests' reference: same commands), each
// measured alternately with the default in the same run.
// Then the command buses shared by a channel's pseudo-channels (the
// presets, JEDEC) against a pair of buses per pseudo-channel, alternately
// in the same run: what the shared buses cost in bandwidth and speed.
// Then random 64 B reads on a device whose activates are bound by tFAW
// (hbm2_x128_tfaw.yaml beside this file), against that ceiling, 64 and 128
// in flight. Last, random 64 B reads from a DRAMsim3 trace (plain and gzip)
// against the same requests generated in the process: the cost of trace
// input.
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "models/hbm/closed_loop.h"
#include "models/hbm/config_loader.h"
#include "models/hbm/hbm_summary.h"
#include "models/hbm/pattern_source.h"
#include "models/hbm/trace_source.h"

using namespace mxc;
using namespace mxc::hbm;

namespace {

struct Case {
  const char* name;
  const char* pattern;
  std::uint32_t bytes;
  std::uint32_t outstanding;
  RefreshMode refresh;
  PagePolicy page;
  std::uint32_t faw;  // 0 = preset
  int postpone = -1;  // refreshes owed at most (controller.refresh_postpone); -1 = preset
};

/// Random 64 B reads from a DRAMsim3 trace file, plain and gzip, against the
/// same requests generated in the process: what reading and parsing a trace
/// adds. The trace holds the generator's addresses in its order, every
/// cycle 0, so the results must be identical.
void trace_input(const MemoryConfig& cfg, std::uint64_t requests, int repeat) {
  PatternOptions p;
  p.pattern = "random";
  p.bytes = 64;
  p.requests = requests;
  const std::string dir = std::filesystem::temp_directory_path().string();
  const std::string plain = dir + "/hbm_bench_" + std::to_string(::getpid()) + ".trace", gz = plain + ".gz";
  {
    PatternSource src(p);
    std::FILE* f = std::fopen(plain.c_str(), "w");
    gzFile z = gzopen(gz.c_str(), "wb");
    if (!f || !z) {
      std::fprintf(stderr, "hbm_bench: cannot write %s\n", plain.c_str());
      std::exit(1);
    }
    SourceItem item;
    char line[64];
    while (src.next(item) == RequestSource::Next::kReady) {
      const int n = std::snprintf(line, sizeof line, "0x%llx READ 0\n", static_cast<unsigned long long>(item.addr));
      std::fwrite(line, 1, static_cast<std::size_t>(n), f);
      gzwrite(z, line, static_cast<unsigned>(n));
    }
    std::fclose(f);
    gzclose(z);
  }
  double best[3] = {0, 0, 0};  // generated, plain trace, gzip trace: CPU seconds
  HbmSummary summary[3];
  for (int r = 0; r < repeat; ++r) {
    for (int i = 0; i < 3; ++i) {
      HbmModel model("hbm", cfg);
      PatternSource generated(p);
      std::unique_ptr<TraceSource> trace;
      if (i) trace = std::make_unique<TraceSource>(i == 1 ? plain : gz, TraceFormat::kDramsim3, cfg.device.t.tCK_ps, 64);
      RequestSource& src = i ? static_cast<RequestSource&>(*trace) : generated;
      const LoopResult run = run_closed_loop(model, src, 64);
      summary[i] = summarize(model, run);
      if (r == 0 || run.cpu_seconds < best[i]) best[i] = run.cpu_seconds;
    }
  }
  std::remove(plain.c_str());
  std::remove(gz.c_str());
  const auto same = [&](int i) {
    return summary[i].requests == summary[0].requests && summary[i].sim_time_ns == summary[0].sim_time_ns &&
           summary[i].avg_latency_ns == summary[0].avg_latency_ns && summary[i].p99_latency_ns == summary[0].p99_latency_ns;
  };
  std::printf("\nrandom read 64 B from a DRAMsim3 trace, against the same requests generated (Mreq/cpu-s, best of %d):\n",
              repeat);
  const char* names[3] = {"generated", "trace, plain", "trace, gzip"};
  for (int i = 0; i < 3; ++i)
    std::printf("  %-14s %6.2f  %5.2f of generated  %s\n", names[i], requests / best[i] / 1e6, best[0] / best[i],
                i == 0 ? "" : same(i) ? "same results" : "RESULTS DIFFER");
}

/// Sequential and random 256 B reads with the config's command buses
/// shared and with a pair per pseudo-channel, alternately, best of `repeat`.
void bus_sharing(const MemoryConfig& base, std::uint64_t requests, int repeat) {
  std::printf("\ncommand buses shared by a channel's pseudo-channels, against a pair each (256 B reads, 64 in flight, "
              "best of %d):\n",
              repeat);
  std::printf("  %-8s %12s %12s %12s %12s %11s\n", "pattern", "GB/s shared", "GB/s own", "Mreq/cpu-s sh", "Mreq/cpu-s own",
              "time sh/own");
  for (const char* pattern : {"seq", "random"}) {
    double best[2] = {0, 0}, gbps[2] = {0, 0};
    for (int r = 0; r < repeat; ++r) {
      for (int own = 0; own < 2; ++own) {
        MemoryConfig cfg = base;
        cfg.controller.shared_command_bus = own == 0;
        HbmModel model("hbm", cfg);
        PatternOptions p;
        p.pattern = pattern;
        p.bytes = 256;
        p.requests = requests;
        PatternSource src(p);
        const LoopResult run = run_closed_loop(model, src, 64);
        const HbmSummary s = summarize(model, run);
        gbps[own] = s.read_bandwidth_gbps;
        if (r == 0 || run.cpu_seconds < best[own]) best[own] = run.cpu_seconds;
      }
    }
    std::printf("  %-8s %12.2f %12.2f %12.2f %12.2f %11.2f\n", pattern, gbps[0], gbps[1], requests / best[0] / 1e6,
                requests / best[1] / 1e6, best[0] / best[1]);
  }
}

/// Random 64 B reads on hbm2_x128_tfaw.yaml (8 channels of 128 bits, tFAW
/// 30 tCK binding before tRRD_S), against its tFAW ceiling, channels x 4 x
/// 64 B / tFAW: which page policy and refresh mode reach it with 64 and
/// with 128 requests in flight. Results are deterministic: one run each.
void tfaw_bound(std::uint64_t requests) {
  const std::string file = std::string(MXCOSIM_SOURCE_DIR) + "/bench/hbm/hbm2_x128_tfaw.yaml";
  const MemoryConfig base = load_memory_config(file);
  const double tck_ns = static_cast<double>(base.device.t.tCK_ps) / 1000.0;
  const double ceiling = base.device.org.pcs() * 4.0 * 64 / (base.device.t.FAW * tck_ns);
  std::printf("\nrandom 64 B reads where tFAW binds (%s: %u channels of %u bits, tFAW %u tCK), ceiling %.2f GB/s:\n",
              base.device.name.c_str(), base.device.org.pcs(), base.device.org.bus_bits, base.device.t.FAW, ceiling);
  std::printf("  %-30s %8s %9s %7s %8s %12s\n", "controller", "window", "GB/s", "ratio", "lat ns", "W x B / lat");
  struct Variant {
    const char* name;
    PagePolicy page;
    RefreshMode refresh;
  };
  const Variant variants[] = {{"open page, all-bank refresh", PagePolicy::kOpen, RefreshMode::kAllBank},
                              {"closed page, per-bank refresh", PagePolicy::kClosed, RefreshMode::kPerBank},
                              {"closed page, no refresh", PagePolicy::kClosed, RefreshMode::kNone}};
  for (const Variant& v : variants) {
    for (const std::uint32_t window : {64u, 128u}) {
      MemoryConfig cfg = base;
      cfg.controller.page_policy = v.page;
      cfg.controller.refresh = v.refresh;
      HbmModel model("hbm", cfg);
      PatternOptions p;
      p.pattern = "random";
      p.bytes = 64;
      p.requests = requests;
      PatternSource src(p);
      const HbmSummary s = summarize(model, run_closed_loop(model, src, window));
      std::printf("  %-30s %8u %9.2f %6.1f%% %8.1f %12.2f\n", v.name, window, s.read_bandwidth_gbps,
                  100.0 * s.read_bandwidth_gbps / ceiling, s.avg_latency_ns, window * 64.0 / s.avg_latency_ns);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t requests = 1000000;
  int repeat = 3;
  std::string config = std::string(MXCOSIM_SOURCE_DIR) + "/configs/hbm/hbm2.yaml";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--requests") && i + 1 < argc) requests = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::stoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--config") && i + 1 < argc) config = argv[++i];
    else {
      std::fprintf(stderr, "usage: hbm_bench [--requests N] [--repeat R] [--config FILE]\n");
      return 2;
    }
  }
  const MemoryConfig base = load_memory_config(config);
  const HbmTiming& t = base.device.t;
  const double peak = base.device.peak_gbps() * base.stacks;
  const double pcs = base.device.org.pcs() * base.stacks;
  const double tck_ns = static_cast<double>(t.tCK_ps) / 1000.0;
  std::printf("hbm_bench: %s (%s), %.1f GB/s peak, %llu requests per case\n\n", base.device.name.c_str(),
              config.c_str(), peak, static_cast<unsigned long long>(requests));

  const Case cases[] = {
      {"seq read 256 B, all-bank refresh", "seq", 256, 64, RefreshMode::kAllBank, PagePolicy::kOpen, 0},
      {"seq read 256 B, all-bank, none postponed", "seq", 256, 64, RefreshMode::kAllBank, PagePolicy::kOpen, 0, 0},
      {"seq read 256 B, per-bank refresh", "seq", 256, 64, RefreshMode::kPerBank, PagePolicy::kOpen, 0},
      {"seq read 64 B, all-bank refresh", "seq", 64, 64, RefreshMode::kAllBank, PagePolicy::kOpen, 0},
      {"random read 64 B, all-bank refresh", "random", 64, 64, RefreshMode::kAllBank, PagePolicy::kOpen, 0},
      {"random read 256 B, all-bank refresh", "random", 256, 64, RefreshMode::kAllBank, PagePolicy::kOpen, 0},
      {"random read 32 B, 1024 in flight", "random", 32, 1024, RefreshMode::kAllBank, PagePolicy::kClosed, 0},
      {"random read 32 B, tFAW=30, 1024 in flight", "random", 32, 1024, RefreshMode::kAllBank, PagePolicy::kClosed, 30},
      {"random read 32 B, tFAW=30, 64 in flight", "random", 32, 64, RefreshMode::kAllBank, PagePolicy::kClosed, 30},
  };
  std::printf("%-44s %9s %9s %7s %8s %8s %9s %9s %9s %9s  %s\n", "case", "GB/s", "ceiling", "ratio", "lat ns", "p99 ns",
              "Mreq/cpu-s", "Mreq/wall-s", "general", "per-cycle", "binding");
  for (const Case& c : cases) {
    MemoryConfig cfg = base;
    cfg.controller.refresh = c.refresh;
    cfg.controller.page_policy = c.page;
    if (c.faw) cfg.device.t.FAW = c.faw;
    if (c.postpone >= 0) cfg.controller.refresh_postpone = static_cast<std::uint32_t>(c.postpone);
    HbmSummary s;
    double best_cpu = 0, best_wall = 0, best_general = 0, best_ticking = 0;
    bool differ = false;  // the shortcuts off or every cycle stepped gave other results
    for (int r = 0; r < repeat; ++r) {
      // The default, the shortcuts off, every cycle stepped.
      for (const int mode : {0, 1, 2}) {
        MemoryConfig run_cfg = cfg;
        run_cfg.fast_path = mode == 0;
        run_cfg.every_cycle = mode == 2;
        HbmModel model("hbm", run_cfg);
        PatternOptions p;
        p.pattern = c.pattern;
        p.bytes = c.bytes;
        p.requests = requests;
        PatternSource src(p);
        const LoopResult run = run_closed_loop(model, src, c.outstanding);
        if (mode != 0) {
          double& best = mode == 1 ? best_general : best_ticking;
          if (r == 0 || run.cpu_seconds < best) best = run.cpu_seconds;
          // The same requests done at the same times: a faster wrong mode must not pass.
          const HbmSummary other = summarize(model, run);
          differ = differ || other.requests != s.requests || other.sim_time_ns != s.sim_time_ns ||
                   other.avg_latency_ns != s.avg_latency_ns || other.p99_latency_ns != s.p99_latency_ns;
          continue;
        }
        s = summarize(model, run);
        if (r == 0 || run.cpu_seconds < best_cpu) best_cpu = run.cpu_seconds, best_wall = run.wall_seconds;
      }
    }
    const double bw = s.read_bandwidth_gbps + s.write_bandwidth_gbps;
    // Sequential: the data bus. Random: activates, each fetching one
    // request (bursts of a request share a row): PCs x 4 x bytes / tFAW, and
    // no more than one ACT per tRRD_S; with the command buses shared, no
    // more than the channel's row bus carries (an ACT's cycles, plus a PRE's
    // for open page, whose random requests are row conflicts) shared by its
    // pseudo-channels; never above the data bus.
    double ceiling = peak;
    if (std::string(c.pattern) == "random") {
      double act_per_ns = std::min(4.0 / cfg.device.t.FAW, 1.0 / cfg.device.t.RRD_S) / tck_ns;
      if (cfg.controller.shared_command_bus) {
        const double row_cycles = cfg.device.t.ACT_cycles + (c.page == PagePolicy::kOpen ? 1.0 : 0.0);
        act_per_ns = std::min(act_per_ns, 1.0 / (row_cycles * cfg.device.org.pseudo_channels * tck_ns));
      }
      ceiling = std::min(peak, pcs * act_per_ns * c.bytes);
    }
    const auto rate = [&](double seconds) { return seconds > 0 ? s.requests / seconds / 1e6 : 0.0; };
    std::printf("%-44s %9.2f %9.2f %6.1f%% %8.1f %8.1f %9.2f %9.2f %9.2f %9.2f  %s\n", c.name, bw, ceiling,
                100.0 * bw / ceiling, s.avg_latency_ns, s.p99_latency_ns, rate(best_cpu), rate(best_wall),
                rate(best_general), rate(best_ticking), s.binding_constraint.c_str());
    if (differ) std::printf("  RESULTS DIFFER between the default, the shortcuts off and every cycle stepped\n");
    std::fflush(stdout);
  }
  bus_sharing(base, requests, repeat);
  tfaw_bound(requests);
  trace_input(base, requests, repeat);
  std::printf(
      "\nA window of W requests of B bytes at mean latency L carries at most W x B / L (Little's law);\n"
      "the 'lat ns' column lets each row be checked against it. 'general': Mreq/cpu-s with the\n"
      "controller shortcuts (streaming steps, planned picks) off (identical results); 'per-cycle':\n"
      "every controller stepped in every cycle, as a cycle-level simulator does (the same commands).\n");
  return 0;
}
