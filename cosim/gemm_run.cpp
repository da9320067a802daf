#include "cosim/gemm_run.h"

#include <chrono>
#include <cstring>

#include "bridge/data_scoreboard.h"
#include "bridge/rtl_tile.h"
#include "cosim/kernel.h"
#include "models/core/ideal_memory.h"
#include "models/mxu/reference_gemm.h"

namespace mxc {

namespace {

std::span<const std::uint8_t> bytes_of(const std::vector<std::int8_t>& v) {
  return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size()};
}

}  // namespace

GemmRunResult run_gemm_cosim(const GemmRunOptions& opts) {
  const auto wall_start = std::chrono::steady_clock::now();
  validate(opts.shape);
  GemmRunResult result;

  IdealMemory memory("mem0", opts.memory_latency_ps, opts.max_outstanding);
  RtlTileConfig tile_cfg;
  tile_cfg.rows = opts.rows;
  tile_cfg.cols = opts.cols;
  tile_cfg.clock_mhz = opts.tile_mhz;
  tile_cfg.seed = opts.seed;
  tile_cfg.max_outstanding = opts.max_outstanding;
  tile_cfg.waveform = opts.waveform;
  RtlTile tile(tile_cfg, memory);

  const GemmShape& s = opts.shape;
  const GemmLayout layout = place_gemm(s);
  const GemmOperands ops = random_gemm_operands(s, opts.seed);
  memory.backdoor_write(layout.a_addr, bytes_of(ops.a));
  memory.backdoor_write(layout.b_addr, bytes_of(ops.b));

  const ArrayShape array{opts.rows, opts.cols, tile.acc_rows()};
  Program program = compile_gemm(s, layout, array);
  result.instructions = program.size();
  tile.load_program(std::move(program));

  Kernel kernel;
  kernel.add(tile);
  kernel.add(memory);

  // Watchdog: no instruction completing for watchdog_cycles cycles is a hang.
  std::size_t completed = 0;
  std::uint64_t last_progress = 0;
  bool hung = false;
  kernel.run([&] {
    if (tile.finished()) return true;
    const auto& ev = tile.instr_events();
    const std::size_t now_completed = ev.empty() ? 0 : ev.size() - 1;
    if (now_completed != completed) {
      completed = now_completed;
      last_progress = tile.cycles();
    } else if (tile.cycles() - last_progress > opts.watchdog_cycles) {
      hung = true;
      return true;
    }
    return false;
  });

  result.cycles = tile.cycles();
  result.sim_time_ps = kernel.now();
  if (hung || !tile.finished()) {
    result.error = "no progress for " + std::to_string(opts.watchdog_cycles) + " cycles: " + tile.state();
  } else {
    if (opts.inject_fault) {
      const std::uint64_t idx = *opts.inject_fault % (std::uint64_t{s.m} * s.n);
      const std::uint64_t addr = layout.c_addr + idx * 4;
      std::uint8_t b = 0;
      memory.backdoor_read(addr, std::span<std::uint8_t>(&b, 1));
      b ^= 1;
      memory.backdoor_write(addr, std::span<const std::uint8_t>(&b, 1));
    }
    const auto expected = reference_gemm_int8(ops.a, ops.b, s.m, s.k, s.n);
    DataScoreboard scoreboard;
    scoreboard.check_int32_matrix("C", memory, layout.c_addr, std::uint64_t{s.n} * 4, s.m, s.n, expected,
                                  kernel.now());
    result.elements_checked = scoreboard.elements_checked();
    result.mismatch_count = scoreboard.mismatch_count();
    result.mismatches = scoreboard.mismatches();
  }
  result.passed = result.error.empty() && result.mismatch_count == 0;
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace mxc
