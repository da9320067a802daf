#include "cosim/program_run.h"

namespace mxc {

SystemRunOptions single_tile_system(const ProgramRunOptions& o) {
  SystemRunOptions s;
  SystemConfig& c = s.system;
  c.file = "<single tile>";
  c.rows = o.rows;
  c.cols = o.cols;
  c.tile_mhz = o.tile_mhz;
  c.tile_kinds = {TileKind::kRtl};
  c.memory = "ideal";
  c.ideal_latency_ps = o.memory_latency_ps;
  c.ideal_outstanding = o.memory_outstanding;
  c.backpressure = o.backpressure;
  c.watchdog_cycles = o.watchdog_cycles;
  c.compare_model = false;
  s.seed = o.seed;
  s.waveform = o.waveform;
  s.inject_fault = o.inject_fault;
  return s;
}

ProgramRunResult single_tile_result(const SystemRunResult& r) {
  ProgramRunResult p;
  p.passed = r.passed;
  p.error = r.error;
  p.cycles = r.rtl_cycles;
  p.instructions = r.instructions;
  p.sim_time_ps = r.sim_time_ps;
  p.wall_seconds = r.wall_seconds;
  p.elements_checked = r.elements_checked;
  p.mismatch_count = r.mismatch_count;
  p.mismatches = r.mismatches;
  if (!r.tiles.empty()) p.perf = r.tiles[0].perf;
  p.bytes_read = r.hbm_read_bytes;
  p.bytes_written = r.hbm_write_bytes;
  return p;
}

ProgramRunResult run_program_cosim(const ProgramRunOptions& opts, const SparseMemory& image, Program program,
                                   const std::vector<ResultRegion>& regions) {
  Workload w;
  w.description = "program of " + std::to_string(program.size()) + " instructions";
  w.images.push_back(image.clone());
  w.programs.push_back({std::move(program)});
  w.regions.push_back(regions);
  return single_tile_result(run_system(single_tile_system(opts), w));
}

}  // namespace mxc
