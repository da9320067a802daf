#include "cosim/program_run.h"

#include <chrono>
#include <cstring>

#include "bridge/data_scoreboard.h"
#include "bridge/rtl_tile.h"
#include "cosim/kernel.h"
#include "models/core/ideal_memory.h"
#include "models/mxu/functional_tile.h"

namespace mxc {

std::vector<std::uint32_t> read_region(const ResultRegion& region, const SparseMemory& mem) {
  const MatrixLayout& l = region.layout;
  std::vector<std::uint32_t> out(std::size_t{l.rows} * l.cols, 0);
  std::uint8_t b[4] = {};
  for (std::uint32_t i = 0; i < l.rows; ++i)
    for (std::uint32_t j = 0; j < l.cols; ++j) {
      mem.read(l.addr(i, j), std::span<std::uint8_t>(b, l.elem_bytes));
      std::uint32_t v = 0;
      for (std::uint32_t k = 0; k < l.elem_bytes; ++k) v |= std::uint32_t{b[k]} << (8 * k);
      out[std::size_t{i} * l.cols + j] = v;
    }
  return out;
}

ProgramRunResult run_program_cosim(const ProgramRunOptions& opts, const SparseMemory& image, Program program,
                                   const std::vector<ResultRegion>& regions) {
  const auto wall_start = std::chrono::steady_clock::now();
  ProgramRunResult result;

  const TileGeometry geo = rtl_tile_geometry(opts.rows, opts.cols);
  IdealMemory memory("mem0", opts.memory_latency_ps, opts.memory_outstanding);
  RtlTileConfig tile_cfg;
  tile_cfg.rows = opts.rows;
  tile_cfg.cols = opts.cols;
  tile_cfg.clock_mhz = opts.tile_mhz;
  tile_cfg.seed = opts.seed;
  tile_cfg.waveform = opts.waveform;
  tile_cfg.cmd_gap = opts.backpressure;
  tile_cfg.ici_out_stall = opts.backpressure;
  tile_cfg.axi_backpressure = {opts.backpressure, opts.backpressure, opts.backpressure, opts.backpressure,
                               opts.backpressure};
  auto tile = make_rtl_tile(tile_cfg, memory);

  image.for_each_page([&](std::uint64_t addr, std::span<const std::uint8_t> bytes) { memory.backdoor_write(addr, bytes); });
  SparseMemory expected_image = image.clone();
  FunctionalTile reference(geo, expected_image);
  reference.run(program);  // also rejects instructions the tile cannot execute, naming the field

  result.instructions = program.size();
  tile->load_program(std::move(program));

  Kernel kernel;
  kernel.add(*tile);
  kernel.add(memory);

  // Watchdog: no instruction completing for watchdog_cycles cycles is a hang.
  std::size_t completed = 0;
  std::uint64_t last_progress = 0;
  bool hung = false;
  kernel.run([&] {
    auto& out = tile->outbound();  // a single chip's rows for itself loop back
    while (!out.empty()) {
      tile->push_inbound(std::move(out.front()));
      out.pop_front();
    }
    if (tile->finished()) return true;
    if (tile->completed_instructions() != completed) {
      completed = tile->completed_instructions();
      last_progress = tile->cycles();
    } else if (tile->cycles() - last_progress > opts.watchdog_cycles) {
      hung = true;
      return true;
    }
    return false;
  });

  result.cycles = tile->cycles();
  result.sim_time_ps = kernel.now();
  result.perf = tile->perf_counters();
  result.bytes_read = tile->axi().bytes_read();
  result.bytes_written = tile->axi().bytes_written();
  if (hung || !tile->finished()) {
    result.error = "no progress for " + std::to_string(opts.watchdog_cycles) + " cycles: " + tile->state();
  } else if (tile->hardware_error()) {
    result.error = "the tile raised its error output: " + tile->state();
  } else {
    SparseMemory actual_image;
    for (const ResultRegion& r : regions) {
      std::vector<std::uint8_t> bytes(r.layout.bytes());
      memory.backdoor_read(r.layout.base, bytes);
      actual_image.write(r.layout.base, bytes);
    }
    if (opts.inject_fault && !regions.empty()) {
      const MatrixLayout& l = regions.front().layout;
      const std::uint64_t idx = *opts.inject_fault % (std::uint64_t{l.rows} * l.cols);
      const std::uint64_t addr = l.addr(static_cast<std::uint32_t>(idx / l.cols), static_cast<std::uint32_t>(idx % l.cols));
      const std::uint8_t b = actual_image.read(addr, 1)[0] ^ 1;
      actual_image.write(addr, std::span<const std::uint8_t>(&b, 1));
    }
    DataScoreboard scoreboard;
    for (const ResultRegion& r : regions)
      scoreboard.check_matrix(r.name, read_region(r, actual_image), read_region(r, expected_image), r.layout.rows,
                              r.layout.cols, r.dtype, r.layout.elem_bytes,
                              [&](std::uint32_t i, std::uint32_t j) { return r.layout.addr(i, j); }, kernel.now());
    result.elements_checked = scoreboard.elements_checked();
    result.mismatch_count = scoreboard.mismatch_count();
    result.mismatches = scoreboard.mismatches();
  }
  result.passed = result.error.empty() && result.mismatch_count == 0;
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace mxc
