#include "cosim/results_json.h"

#include "models/core/clock_domain.h"

namespace mxc {

nlohmann::ordered_json results_json(const SystemRunOptions& o, const SystemRunResult& r) {
  using json = nlohmann::ordered_json;
  const SystemConfig& c = o.system;
  json j;
  j["schema_version"] = kResultsSchemaVersion;
  j["status"] = r.passed ? "pass" : "fail";
  j["error"] = r.error;
  j["seed"] = o.seed;
  j["rtl_cycles"] = r.rtl_cycles;
  j["model_cycles"] = r.model_cycles ? json(*r.model_cycles) : json(nullptr);
  j["cycles"] = {{"rtl", r.rtl_cycles}, {"model", r.model_cycles ? json(*r.model_cycles) : json(nullptr)}};
  // Only for a run that ran to its end: a stopped run's cycle counts are where it stopped.
  if (r.model_cycles && *r.model_cycles && r.error.empty())
    j["cycle_error_percent"] =
        100.0 * (static_cast<double>(r.rtl_cycles) - static_cast<double>(*r.model_cycles)) / static_cast<double>(*r.model_cycles);
  j["config"] = {{"file", c.file},
                 {"chips", c.chips},
                 {"tiles_per_chip", c.tiles_per_chip},
                 {"rows", c.rows},
                 {"cols", c.cols},
                 {"tile_mhz", c.tile_mhz},
                 {"tile_period_ps", ClockDomain::from_mhz("tile", c.tile_mhz).period()},
                 {"memory", c.memory},
                 {"hbm_config", c.hbm_config},
                 {"ici_config", c.ici_config},
                 {"compare_model", c.compare_model},
                 {"backpressure", c.backpressure}};
  // What the verdict was judged by, after the fields above (fields are only ever added).
  json kinds = json::array();
  for (TileKind k : c.tile_kinds) kinds.push_back(k == TileKind::kRtl ? "rtl" : "model");
  j["config"]["tile_kinds"] = std::move(kinds);
  j["config"]["tolerance_cycles"] = c.tolerance_cycles;
  j["config"]["tolerance_percent"] = c.tolerance_percent;
  j["config"]["watchdog_cycles"] = c.watchdog_cycles;
  j["config"]["hbm_timing_check"] = c.hbm_timing_check;
  // The ideal memory's own terms (--mem-latency-ns, --mem-outstanding); an HBM memory has none.
  const bool ideal = c.memory == "ideal";
  j["config"]["mem_latency_ns"] = ideal ? json(static_cast<double>(c.ideal_latency_ps) / 1000.0) : json(nullptr);
  j["config"]["mem_outstanding"] = ideal ? json(c.ideal_outstanding) : json(nullptr);
  // What the workload was made of, as `mxcosim model --json` writes it: a
  // program is its file (no shape), an MLP has its hidden size too.
  if (o.workload.kind == "program") {
    const std::vector<std::string>& files = o.workload.program_files;
    j["workload"] = {{"kind", o.workload.kind}, {"description", r.workload}, {"file", files.empty() ? "" : files[0]}};
    if (files.size() > 1) j["workload"]["files"] = files;  // one per chip: chip c's is the c-th
  } else {
    j["workload"] = {{"kind", o.workload.kind},
                     {"description", r.workload},
                     {"m", o.workload.shape.m},
                     {"k", o.workload.shape.k},
                     {"n", o.workload.shape.n},
                     {"dtype", std::string(to_string(o.workload.shape.dtype))}};
    if (o.workload.kind == "mlp")
      j["workload"]["hidden"] = o.workload.hidden_features();
    if (o.workload.kind == "gemm" && o.workload.split != "none") j["workload"]["split"] = o.workload.split;
  }
  j["instructions"] = r.instructions;
  j["sim_time_ns"] = static_cast<double>(r.sim_time_ps) / 1000.0;
  j["elements_checked"] = r.elements_checked;
  j["memory_bytes_checked"] = r.memory_bytes_checked;
  j["mismatch_count"] = r.mismatch_count;
  auto& list = j["mismatches"] = json::array();
  for (const auto& m : r.mismatches)
    list.push_back({{"time_ps", m.time}, {"where", m.where}, {"id", m.id}, {"field", m.field},
                    {"expected", m.expected}, {"actual", m.actual}});
  j["undefined_reads"] = r.undefined_reads;
  j["hbm_read_bytes"] = r.hbm_read_bytes;
  j["hbm_write_bytes"] = r.hbm_write_bytes;
  j["hbm_requests_beyond_capacity"] = r.hbm_requests_beyond_capacity;
  j["ici_bytes"] = r.ici_bytes;
  j["utilization"] = r.utilization;
  j["bandwidth_gbps"] = r.bandwidth_gbps;
  j["timing"] = {{"compared", r.timing.compared},
                 {"instructions", r.timing.instructions},
                 {"mismatches", r.timing.mismatches},
                 {"mean_abs_instr_error_cycles", r.timing.mean_abs_instr_error},
                 {"max_abs_instr_error_cycles", r.timing.max_abs_instr_error},
                 {"memory_requests", r.timing.memory_requests}};
  auto& hist = j["timing"]["instr_error_histogram"] = json::array();
  for (const auto& [err, n] : r.timing.error_histogram) hist.push_back({{"error_cycles", err}, {"instructions", n}});
  j["handshakes_checked"] = r.handshakes;
  auto& tiles = j["tiles"] = json::array();
  for (const auto& t : r.tiles) {
    json perf = json::object();
    for (const auto& [name, v] : t.perf) perf[name] = v;
    tiles.push_back({{"name", t.name},
                     {"kind", t.kind == TileKind::kRtl ? "rtl" : "model"},
                     {"cycles", t.cycles},
                     {"model_cycles", t.model_cycles},
                     {"instructions", t.instructions},
                     {"perf_counters", perf}});
  }
  return j;
}

}  // namespace mxc
