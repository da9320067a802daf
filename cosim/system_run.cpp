#include "cosim/system_run.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>

#include "bridge/axi4_protocol_error.h"
#include "bridge/data_scoreboard.h"
#include "bridge/timing_correlator.h"
#include "bridge/rtl_tile.h"
#include "cosim/chip_set.h"
#include "cosim/kernel.h"
#include "cosim/timeline.h"
#include "cosim/trace_writer.h"
#include "models/mxu/functional_system.h"
#include "models/mxu/functional_tile.h"

namespace mxc {

namespace {

/// The timing correlator's name for tile t of chip c's ICI rows.
std::string ici_channel(std::uint32_t c, std::uint32_t t) {
  return "timing ici chip" + std::to_string(c) + ".tile" + std::to_string(t);
}

std::uint64_t counter(const std::vector<std::pair<std::string, std::uint64_t>>& perf, const std::string& name) {
  for (const auto& [n, v] : perf)
    if (n == name) return v;
  return 0;
}

/// The memory image the functional reference leaves on each chip. Tile t of
/// every chip runs as one multi-chip functional system (its ICI peers are
/// tile t of the other chips); the tiles of a chip run one after another.
std::vector<SparseMemory> reference_images(const Workload& w, const TileGeometry& geo) {
  const auto chips = static_cast<std::uint32_t>(w.images.size());
  std::vector<SparseMemory> images;
  for (const auto& img : w.images) images.push_back(img.clone());
  const std::size_t tiles = w.programs.empty() ? 0 : w.programs[0].size();
  for (std::size_t t = 0; t < tiles; ++t) {
    FunctionalSystem sys(geo, chips);
    std::vector<Program> programs;
    for (std::uint32_t c = 0; c < chips; ++c) {
      images[c].for_each_page([&](std::uint64_t a, std::span<const std::uint8_t> b) { sys.memory(c).write(a, b); });
      programs.push_back(w.programs[c][t]);
    }
    sys.run(programs);
    for (std::uint32_t c = 0; c < chips; ++c) images[c] = sys.memory(c).clone();
  }
  return images;
}

void write_trace(const std::string& path, const SystemConfig& cfg, const Workload& work, const ChipSet& dut,
                 const ChipSet* shadow) {
  TraceWriter out(path);
  int pid = 1;
  for (const ChipSet* set : {&dut, shadow}) {
    if (!set) continue;
    for (std::uint32_t c = 0; c < cfg.chips; ++c)
      for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t, ++pid) {
        const Tile& tile = set->tile(c, t);
        out.process(pid, tile.name());
        trace_instructions(out, pid, work.programs[c][t], tile.instr_events(), tile.clock());
        trace_memory(out, pid, set->memory_log(c, t));
      }
  }
  for (std::uint32_t c = 0; c < cfg.chips; ++c)
    if (const ClockDomain* clk = dut.hbm_clock(c)) {
      out.process(pid, "dut.chip" + std::to_string(c) + ".hbm");
      trace_hbm_commands(out, pid++, dut.hbm_commands(c), *clk);
    }
  out.process(pid, "ici");
  trace_ici(out, pid, dut.ici_delivered());
  out.close();
}

}  // namespace

SystemRunResult run_system(const SystemRunOptions& opts) {
  validate(opts.system);
  const TileGeometry geo = rtl_tile_geometry(opts.system.rows, opts.system.cols);
  return run_system(opts, build_workload(opts.workload, opts.system, geo, opts.seed));
}

SystemRunResult run_system(const SystemRunOptions& opts, const Workload& work) {
  const auto wall_start = std::chrono::steady_clock::now();
  const SystemConfig& cfg = opts.system;
  validate(cfg);
  const TileGeometry geo = rtl_tile_geometry(cfg.rows, cfg.cols);
  if (work.images.size() != cfg.chips || work.programs.size() != cfg.chips || work.regions.size() != cfg.chips)
    throw std::invalid_argument("workload '" + work.description + "' is for " + std::to_string(work.images.size()) +
                                " chips, the system has " + std::to_string(cfg.chips));
  for (const auto& progs : work.programs)
    if (progs.size() != cfg.tiles_per_chip)
      throw std::invalid_argument("workload '" + work.description + "' has " + std::to_string(progs.size()) +
                                  " programs per chip, the system " + std::to_string(cfg.tiles_per_chip) + " tiles");
  const std::vector<SparseMemory> expected = reference_images(work, geo);

  SystemRunResult result;
  result.workload = work.description;

  ChipSetOptions dut_opts;
  dut_opts.prefix = "dut";
  dut_opts.seed = opts.seed;
  dut_opts.waveform = opts.waveform;
  dut_opts.waveform_from_cycle = opts.waveform_from_cycle;
  dut_opts.waveform_to_cycle = opts.waveform_to_cycle;
  dut_opts.make_memory = opts.make_memory;
  dut_opts.make_fabric = opts.make_fabric;
  dut_opts.record_hbm_commands = !opts.trace.empty();
  dut_opts.mutant = opts.mutant;
  ChipSet dut(cfg, geo, dut_opts);
  std::unique_ptr<ChipSet> shadow;
  if (cfg.compare_model) {
    ChipSetOptions s = dut_opts;
    s.prefix = "model";
    s.all_model = true;
    s.waveform.clear();
    s.make_memory = nullptr;
    s.make_fabric = nullptr;
    s.record_hbm_commands = false;
    s.mutant.clear();  // the shadow is the reference: never mutated
    shadow = std::make_unique<ChipSet>(cfg, geo, s);
  }

  std::size_t total_instructions = 0;
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    dut.load_image(c, work.images[c]);
    if (shadow) shadow->load_image(c, work.images[c]);
    for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) {
      total_instructions += work.programs[c][t].size();
      dut.load_program(c, t, work.programs[c][t]);
      if (shadow) shadow->load_program(c, t, work.programs[c][t]);
    }
  }
  result.instructions = total_instructions;

  Kernel kernel;
  dut.add_to(kernel);
  if (shadow) shadow->add_to(kernel);

  // Watchdog: no instruction completing anywhere for watchdog_cycles tile
  // cycles is a hang; the report says what every unfinished tile was doing.
  std::size_t completed = 0;
  std::uint64_t last_progress = 0;
  bool hung = false;
  auto next_report = wall_start + std::chrono::seconds(1);
  std::uint64_t steps = 0;
  // An AXI protocol violation stops the run: its record is the failure.
  std::optional<Mismatch> protocol_violation;
  try {
    kernel.run([&] {
      dut.pump(kernel.now());
      if (shadow) shadow->pump(kernel.now());
      if (dut.finished() && (!shadow || shadow->finished())) return true;
      // The watchdog looks every 64 kernel steps (a few tile cycles): a hang
      // is still seen within watchdog_cycles plus those, at a fraction of
      // the per-step cost.
      if ((++steps & 63) != 0) return false;
      const std::size_t now_completed = dut.completed_instructions() + (shadow ? shadow->completed_instructions() : 0);
      const std::uint64_t cycles = std::max(dut.max_tile_cycles(), shadow ? shadow->max_tile_cycles() : 0);
      if (now_completed != completed) {
        completed = now_completed;
        last_progress = cycles;
      } else if (cycles - last_progress > cfg.watchdog_cycles) {
        hung = true;
        return true;
      }
      if (opts.on_progress && (steps & 0xfff) == 0 && std::chrono::steady_clock::now() >= next_report) {
        next_report += std::chrono::seconds(1);
        opts.on_progress(kernel.now() / 1000.0, dut.completed_instructions(), total_instructions);
      }
      return false;
    });
  } catch (const Axi4ProtocolError& e) {
    protocol_violation = e.mismatch();
  }
  dut.finish(kernel.now());
  if (shadow) shadow->finish(kernel.now());
  result.sim_time_ps = kernel.now();

  // Per-tile reports and totals.
  std::uint64_t active = 0, tile_cycles = 0;
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    result.hbm_read_bytes += dut.bytes_read(c);
    result.hbm_write_bytes += dut.bytes_written(c);
    for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) {
      const Tile& tile = dut.tile(c, t);
      TileReport r;
      r.name = tile.name();
      r.kind = dut.kind(t);
      r.cycles = tile.cycles();
      r.instructions = work.programs[c][t].size();
      r.perf = tile.perf_counters();
      if (shadow) r.model_cycles = shadow->tile(c, t).cycles();
      result.rtl_cycles = std::max(result.rtl_cycles, r.cycles);
      if (shadow) result.model_cycles = std::max(result.model_cycles.value_or(0), r.model_cycles);
      active += counter(r.perf, "array_active");
      tile_cycles += r.cycles;
      result.tiles.push_back(std::move(r));
    }
  }
  result.ici_bytes = dut.ici_bytes();
  result.utilization = tile_cycles ? static_cast<double>(active) / static_cast<double>(tile_cycles) : 0.0;
  result.bandwidth_gbps = result.sim_time_ps
                              ? static_cast<double>(result.hbm_read_bytes + result.hbm_write_bytes) /
                                    (static_cast<double>(result.sim_time_ps) / 1000.0)
                              : 0.0;

  if (protocol_violation) {
    result.error = "stopped at an AXI protocol violation: " + to_string(*protocol_violation);
    ++result.mismatch_count;
    result.mismatches.push_back(*protocol_violation);
  } else if (hung || !dut.finished() || (shadow && !shadow->finished())) {
    std::string state = dut.state();
    if (shadow && !shadow->finished()) state += (state.empty() ? "" : "; ") + shadow->state();
    result.error = "no progress for " + std::to_string(cfg.watchdog_cycles) + " cycles: " + state;
    if (shadow) {
      // Where did the RTL leave the model's path before it stopped? The
      // traffic both sides produced (the common prefix of each channel) is
      // compared; counts and instruction times of a cut-short run are not.
      const TimingTolerance tol{cfg.tolerance_cycles, cfg.tolerance_percent};
      for (std::uint32_t c = 0; c < cfg.chips; ++c)
        for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) {
          TimingCorrelator corr(tol, tol);
          const ClockDomain& clk = dut.tile(c, t).clock();
          corr.compare_memory(dut.memory_log(c, t), shadow->memory_log(c, t), clk, TrafficScope::kCommonPrefix);
          corr.compare_ici(dut.ici_sends(c, t), shadow->ici_sends(c, t), clk,
                           ici_channel(c, t),
                           TrafficScope::kCommonPrefix);
          result.mismatch_count += corr.mismatch_count();
          result.mismatches.insert(result.mismatches.end(), corr.mismatches().begin(), corr.mismatches().end());
        }
    }
  } else {
    for (std::uint32_t c = 0; c < cfg.chips && result.error.empty(); ++c)
      for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t)
        if (dut.kind(t) == TileKind::kRtl) {
          if (const auto* rtl = dynamic_cast<const RtlTile*>(&dut.tile(c, t)); rtl && rtl->hardware_error()) {
            result.error = rtl->name() + " raised its error output";
            break;
          }
        }
  }

  // The HBM models' own JEDEC timing checkers.
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    std::uint64_t n = 0;
    for (const std::string& v : dut.hbm_violations(c)) {
      ++result.mismatch_count;
      if (n++ < 100) result.mismatches.push_back({result.sim_time_ps, "hbm timing chip" + std::to_string(c), "", "JEDEC rule", "no violation", v});
    }
  }

  // Handshake rules on every RTL tile's channels.
  for (std::uint32_t c = 0; c < cfg.chips; ++c)
    for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t)
      if (const auto* rtl = dynamic_cast<const RtlTile*>(&dut.tile(c, t))) {
        const HandshakeChecker& h = rtl->handshake();
        for (std::size_t ch = 0; ch < h.channels(); ++ch) result.handshakes += h.handshakes(ch);
        result.mismatch_count += h.mismatch_count();
        result.mismatches.insert(result.mismatches.end(), h.mismatches().begin(), h.mismatches().end());
      }

  // Timing: every DUT tile against its shadow, per instruction and per memory request.
  if (shadow && result.error.empty()) {
    result.timing.compared = true;
    const TimingTolerance tol{cfg.tolerance_cycles, cfg.tolerance_percent};
    double abs_sum = 0;
    for (std::uint32_t c = 0; c < cfg.chips; ++c)
      for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) {
        TimingCorrelator corr(tol, tol);
        const Tile& d = dut.tile(c, t);
        corr.compare_instructions(work.programs[c][t], d.instr_events(), shadow->tile(c, t).instr_events(), d.clock());
        corr.compare_memory(dut.memory_log(c, t), shadow->memory_log(c, t), d.clock());
        corr.compare_ici(dut.ici_sends(c, t), shadow->ici_sends(c, t), d.clock(),
                         ici_channel(c, t));
        for (const InstrTiming& it : corr.instructions()) {
          const std::int64_t e = it.duration_error();
          abs_sum += static_cast<double>(e < 0 ? -e : e);
          result.timing.max_abs_instr_error = std::max(result.timing.max_abs_instr_error, e < 0 ? -e : e);
          ++result.timing.error_histogram[e];
        }
        result.timing.instructions += corr.instructions().size();
        result.timing.memory_requests += dut.memory_log(c, t).size();
        result.timing.mismatches += corr.mismatch_count();
        result.mismatch_count += corr.mismatch_count();
        result.mismatches.insert(result.mismatches.end(), corr.mismatches().begin(), corr.mismatches().end());
      }
    if (result.timing.instructions)
      result.timing.mean_abs_instr_error = abs_sum / static_cast<double>(result.timing.instructions);
  }

  if (!opts.trace.empty()) write_trace(opts.trace, cfg, work, dut, shadow.get());

  if (result.error.empty()) {
    DataScoreboard scoreboard;
    for (std::uint32_t c = 0; c < cfg.chips; ++c) {
      SparseMemory actual;
      for (const ResultRegion& r : work.regions[c]) {
        std::vector<std::uint8_t> bytes(r.layout.bytes());
        dut.memory(c).backdoor_read(r.layout.base, bytes);
        actual.write(r.layout.base, bytes);
      }
      if (opts.inject_fault && c == 0 && !work.regions[c].empty()) {
        const MatrixLayout& l = work.regions[c].front().layout;
        const std::uint64_t idx = *opts.inject_fault % (std::uint64_t{l.rows} * l.cols);
        const std::uint64_t addr =
            l.addr(static_cast<std::uint32_t>(idx / l.cols), static_cast<std::uint32_t>(idx % l.cols));
        const std::uint8_t b = actual.read(addr, 1)[0] ^ 1;
        actual.write(addr, std::span<const std::uint8_t>(&b, 1));
      }
      for (const ResultRegion& r : work.regions[c]) {
        if (dut.kind(r.producer_tile) != TileKind::kRtl) continue;
        // The rows this chip holds: [first, end) of the region.
        const std::uint32_t first = std::min(r.first_row, r.layout.rows);
        const std::uint32_t end = std::min(r.end_row, r.layout.rows);
        const std::size_t cols = r.layout.cols;
        const auto slice = [&](std::vector<std::uint32_t> v) {
          return std::vector<std::uint32_t>(v.begin() + first * cols, v.begin() + end * cols);
        };
        scoreboard.check_matrix(r.name, slice(read_region(r, actual)), slice(read_region(r, expected[c])), end - first,
                                r.layout.cols, r.dtype, r.layout.elem_bytes,
                                [&](std::uint32_t i, std::uint32_t j) { return r.layout.addr(first + i, j); },
                                kernel.now());
      }
      if (work.check_whole_image && dut.kind(0) == TileKind::kRtl) {
        // Every 4-byte word of every page the reference holds.
        expected[c].for_each_page([&](std::uint64_t base, std::span<const std::uint8_t> want) {
          std::vector<std::uint8_t> got(want.size());
          dut.memory(c).backdoor_read(base, got);
          std::vector<std::uint32_t> a(want.size() / 4), e(want.size() / 4);
          std::memcpy(a.data(), got.data(), got.size());
          std::memcpy(e.data(), want.data(), want.size());
          scoreboard.check_matrix("chip" + std::to_string(c) + ".memory", a, e, 1, static_cast<std::uint32_t>(a.size()),
                                  DType::kInt8, 4, [&](std::uint32_t, std::uint32_t j) { return base + 4ull * j; },
                                  kernel.now());
        });
      }
    }
    result.elements_checked = scoreboard.elements_checked();
    result.mismatch_count += scoreboard.mismatch_count();
    result.mismatches.insert(result.mismatches.end(), scoreboard.mismatches().begin(), scoreboard.mismatches().end());
  }
  std::stable_sort(result.mismatches.begin(), result.mismatches.end(),
                   [](const Mismatch& a, const Mismatch& b) { return a.time < b.time; });
  result.passed = result.error.empty() && result.mismatch_count == 0;
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace mxc
