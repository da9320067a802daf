// `mxcosim model`: a workload on the performance model alone (ModelTile, no
// RTL), or in closed form (--analytic); --sweep writes a CSV over array
// sizes, clocks, HBM presets and ICI bandwidths.
#include <chrono>
#include <cstdlib>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_args.h"
#include "command.h"
#include "cosim/json_text.h"
#include "models/core/output_file.h"
#include "models/hbm/config_loader.h"
#include "models/ici/ici_config.h"
#include "models/mxu/analytic_model.h"
#include "models/mxu/assembler.h"
#include "models/mxu/gemm_program.h"
#include "models/mxu/hazard_check.h"
#include "models/mxu/instr_check.h"
#include "models/mxu/mlp_program.h"
#include "models/mxu/multichip_program.h"
#include "models/mxu/workloads/model_system.h"
#include "regress/exports.h"

namespace mxc::app {

namespace {

struct Workload {
  std::string kind = "gemm";  // gemm, mlp, program
  std::string program_file;   // kind == program: assembly text (docs/isa.md)
  std::uint32_t m = 0, k = 0, n = 0, hidden = 0;
  DType dtype = DType::kBf16;
  std::uint32_t chips = 1;
  ChipSplit split = ChipSplit::kK;
};

struct Machine {
  std::uint32_t rows = 128, cols = 128, acc_rows = 256, sp_rows = 1024;
  double clock_mhz = 1000;
  std::string hbm = "hbm2e_3200";
  double ici_gbps = 45;
  double mem_latency_ns = 100;
  std::uint32_t outstanding = 64;
  bool double_buffer = true;
  std::uint32_t m_block = 0;  // analytic only
  // Analytic only: --acc-rows or --sp-rows given, so M is blocked as the
  // compiler blocks it on this machine's scratchpad and accumulators.
  bool compiler_m_block = false;
  bool port_limit = true;     // analytic only: the DMA's one beat per cycle bounds traffic
};

struct Outcome {
  bool ok = true;
  std::string error;
  std::uint64_t cycles = 0;
  double utilization = 0;
  std::uint64_t read_bytes = 0, write_bytes = 0;
  double achieved_gbps = 0;
  std::uint64_t instructions = 0;
  std::uint64_t roofline_cycles = 0;  // analytic only
  std::uint64_t array_cycles = 0;     // analytic only: the array alone, memory unlimited
  std::uint64_t ici_cycles = 0;       // analytic only: the collective, after the array and the memory
  std::uint32_t m_block = 0;          // analytic only: rows of A per fold (0: all of M)
  std::uint64_t scalesim_cycles = 0;  // analytic only
  std::vector<std::pair<std::string, std::uint64_t>> counters;  // summed over chips
  double wall_seconds = 0;
};

/// "ideal", a YAML file, or the name of a preset in configs/hbm/.
struct MemorySpec {
  bool ideal = true;
  std::string path;  // the file read: a path as given, or the preset file found; empty for ideal
  hbm::MemoryConfig cfg;
  double peak_gbps = 0;  // 0: unlimited
};

/// The file a memory value names. A value with a '/' or ending in .yaml is a
/// file path; any other is a preset name, whatever the working directory
/// holds (a folder `hbm3` there is not the preset hbm3): configs/hbm/NAME.yaml
/// relative to the working directory, to $MXCOSIM_ROOT (from outside the
/// source tree), then in the presets this program was built with.
std::string memory_path(const std::string& spec, const std::string& option) {
  const bool is_path = spec.find('/') != std::string::npos ||
                       (spec.size() >= 5 && spec.compare(spec.size() - 5, 5, ".yaml") == 0);
  if (is_path) {
    if (!std::filesystem::exists(spec)) throw std::invalid_argument(option + " '" + spec + "': no such file");
    return spec;
  }
  std::vector<std::string> presets{"configs/hbm/" + spec + ".yaml"};
  if (const char* root = std::getenv("MXCOSIM_ROOT"))
    presets.push_back(std::string(root) + "/configs/hbm/" + spec + ".yaml");
  presets.push_back(std::string(MXCOSIM_HBM_PRESETS_DIR) + "/" + spec + ".yaml");
  for (const std::string& path : presets)
    if (std::filesystem::exists(path)) return path;
  throw std::invalid_argument(option + " '" + spec + "': not 'ideal', a file (a path with a '/' or ending in .yaml), " +
                              "or a preset configs/hbm/" + spec + ".yaml (relative to the working directory or to " +
                              "$MXCOSIM_ROOT, or in " + MXCOSIM_HBM_PRESETS_DIR + ")");
}

/// `option` (--hbm or --sweep-hbm) names the value in errors. Reads the file:
/// called once per value (a pipe gives its text once).
MemorySpec resolve_memory(const std::string& spec, const std::string& option) {
  MemorySpec m;
  if (spec == "ideal") return m;
  m.path = memory_path(spec, option);
  m.ideal = false;
  try {
    m.cfg = hbm::load_memory_config(m.path);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(option + " '" + spec + "': " + e.what());
  }
  m.peak_gbps = m.cfg.device.peak_gbps() * m.cfg.stacks;
  return m;
}

/// Multiply-accumulates a program asks of the array: per MATMUL, vectors x K
/// x the N of the weights last loaded into its buffer.
std::uint64_t program_macs(const Program& p) {
  std::uint64_t n_of[2] = {0, 0}, total = 0;
  for (const Instr& in : p) {
    if (in.op == Opcode::LOAD_WEIGHTS) n_of[in.buf & 1] = in.cols;
    if (in.op == Opcode::MATMUL) total += std::uint64_t{in.rows} * in.cols * n_of[in.buf & 1];
  }
  return total;
}

/// The chip split as the JSON and the CSV name it; none on one chip (--split is refused there).
std::string split_name(const Workload& w) {
  if (w.chips == 1) return "";
  return w.split == ChipSplit::kK ? "k" : "n";
}

/// A GEMM's or an MLP's multiply-accumulates, exact in 128 bits (m * k * n
/// reaches 2^96) and rounded once to a double.
double macs(const Workload& w) {
  using u128 = unsigned __int128;
  if (w.kind == "mlp") return static_cast<double>(u128{w.m} * w.k * w.hidden + u128{w.m} * w.hidden * w.n);
  return static_cast<double>(u128{w.m} * w.k * w.n);
}

// The limits of the machine options, applied to an option's value and to
// every entry of its sweep list alike (`option` names the one given).

/// Array rows and columns: a row of raw 32-bit outputs (4 x cols bytes), or of
/// a scratchpad holding max(rows, cols) of them, is moved by one DMA or ICI
/// row whose byte count is the instructions' 16-bit COLS field. (At 16384
/// columns the compiled programs' byte counts wrapped: a wrong count or an
/// internal error.)
constexpr std::uint32_t kMaxArraySide = 65535 / 4;

/// The clock: below 1 kHz a cycle's picoseconds pass the range of time in a long run (as run's
/// system.tile.clock_mhz); at 1e6 MHz a cycle is 1 ps.
void check_clock(double mhz, const std::string& option) {
  if (!(mhz >= 1e-3 && mhz <= 1e6)) throw std::invalid_argument(option + " must be in [0.001, 1e6]");
}

void check_ici(double gbps, const std::string& option) {
  // The ICI fabric's limits (link.bandwidth_gbps), for the analytic model too.
  if (!(gbps >= ici::kMinLinkGbps && gbps <= ici::kMaxLinkGbps))
    throw std::invalid_argument(option + " must be in [0.001, 1e6] GB/s");
}

TileGeometry geometry(const Machine& mc) {
  TileGeometry g;
  g.rows = mc.rows;
  g.cols = mc.cols;
  g.acc_rows = mc.acc_rows;
  g.sp_rows = mc.sp_rows;
  g.validate();
  // The one option at fault (the first, of several).
  for (const auto& [option, value] : {std::pair{"--sp-rows", g.sp_rows}, {"--acc-rows", g.acc_rows}})
    if (value > 65536)
      throw std::invalid_argument(std::string(option) + " must be <= 65536 (row numbers are 16-bit fields), got " +
                                  std::to_string(value));
  for (const auto& [option, value] : {std::pair{"--rows", g.rows}, {"--cols", g.cols}})
    if (value > kMaxArraySide)
      throw std::invalid_argument(std::string(option) + " must be <= " + std::to_string(kMaxArraySide) +
                                  " (a row of 32-bit values must fit a DMA's 16-bit byte count), got " +
                                  std::to_string(value));
  return g;
}

/// What the workload asks of the array beyond the machine's own limits, the
/// compiler's checks that do not depend on the program's size: checked for
/// the closed form as for the performance model, so the two take the same
/// machines.
void check_fits(const Workload& w, const TileGeometry& geo, bool compiler_blocks) {
  if (w.kind == "mlp") validate_mlp_array(geo, w.dtype);
  if (w.chips > 1) validate_split(MultiChipGemm{{w.m, w.k, w.n, w.dtype}, w.chips, w.split}, geo);
  // `compiler_blocks`: M is blocked as the compiler blocks it (the model, or the closed form
  // given --sp-rows or --acc-rows), in the scratchpad's double buffers of A, B and C, which an
  // array too large for them does not fit (the closed form took a 511-row array). The closed
  // form's own M block (--m-block, or all of M) uses no scratchpad.
  if (!compiler_blocks || w.kind == "program") return;
  if (w.chips > 1) multichip_m_block(geo);
  else gemm_m_block(geo);  // an MLP's two layers too
}

/// The closed form's rows of A per fold: --m-block, or the compiler's M block
/// on this machine when its scratchpad or accumulators are given (--sp-rows,
/// --acc-rows), or 0: all of M, as SCALE-Sim.
std::uint32_t analytic_m_block(const Workload& w, const Machine& mc, const TileGeometry& geo) {
  if (!mc.compiler_m_block) return mc.m_block;
  return w.chips > 1 ? multichip_m_block(geo) : gemm_m_block(geo);
}

Outcome run_analytic(const Workload& w, const Machine& mc, const MemorySpec& mem) {
  const TileGeometry geo = geometry(mc);
  check_fits(w, geo, mc.compiler_m_block);
  const std::uint32_t m_block = analytic_m_block(w, mc, geo);
  const auto gemm = [&](std::uint32_t m, std::uint32_t k, std::uint32_t n, std::uint32_t out_bytes = 4) {
    AnalyticConfig a;
    a.out_bytes = out_bytes;
    a.rows = mc.rows;
    a.cols = mc.cols;
    a.m = m;
    a.k = k;
    a.n = n;
    a.dtype = w.dtype;
    a.double_buffer = mc.double_buffer;
    a.m_block = m_block;
    a.beat_bytes = TileGeometry{}.beat_bytes;
    a.port_bytes_per_cycle = mc.port_limit ? TileGeometry{}.beat_bytes : 0;
    a.clock_mhz = mc.clock_mhz;
    a.hbm_gbps = mem.peak_gbps;
    a.chips = w.chips;
    a.split_k = w.split == ChipSplit::kK;
    a.ici_gbps = mc.ici_gbps;
    return analyze_gemm(a);
  };
  std::vector<AnalyticResult> parts;
  if (w.kind == "mlp") {
    // The hidden layer is written narrowed to the input type (mlp_program.h).
    parts.push_back(gemm(w.m, w.k, w.hidden, w.dtype == DType::kBf16 ? 2 : 1));
    parts.push_back(gemm(w.m, w.hidden, w.n));
  } else {
    parts.push_back(gemm(w.m, w.k, w.n));
  }
  Outcome o;
  o.m_block = m_block;
  // Each layer's counts fit in 64 bits (analyze_gemm); their sums must too.
  const auto add = [&](std::uint64_t& to, std::uint64_t v, const char* what) {
    if (v > ~std::uint64_t{0} - to)
      throw std::invalid_argument("analytic: the workload is too large: its " + std::string(what) +
                                  " do not fit in 64 bits");
    to += v;
  };
  for (const auto& r : parts) {
    add(o.cycles, r.cycles, "cycles");
    add(o.read_bytes, r.hbm_read_bytes, "HBM bytes");
    add(o.write_bytes, r.hbm_write_bytes, "HBM bytes");
    add(o.roofline_cycles, r.roofline_cycles, "cycles");
    add(o.array_cycles, r.compute_cycles, "cycles");
    add(o.ici_cycles, r.ici_cycles, "cycles");
    add(o.scalesim_cycles, r.scalesim_total_cycles, "cycles");
  }
  std::uint64_t bytes = o.read_bytes;
  add(bytes, o.write_bytes, "HBM bytes");
  o.utilization = macs(w) /
                  (static_cast<double>(w.chips) * mc.rows * mc.cols * static_cast<double>(o.cycles));
  const double seconds = static_cast<double>(o.cycles) / (mc.clock_mhz * 1e6);
  o.achieved_gbps = static_cast<double>(bytes) / seconds / 1e9;
  return o;
}

/// A --program file, read and parsed once: a pipe gives its text once, and a
/// sweep checks it against each point's array.
struct ProgramFile {
  Program program;
  ProgramSource source;
};

/// Every check of a --program file that needs no run, for an array of `geo`'s shape.
void check_program_file(const ProgramFile& file, const TileGeometry& geo) {
  check_program(file.program, geo, file.source);
  check_destinations(file.program, 1, file.source);  // a program runs on one chip
  check_waits_alone(file.program, file.source);
  check_hazards(file.program, file.source, 1);  // one chip, as above
}

Outcome run_model(const Workload& w, const Machine& mc, const MemorySpec& mem, const ProgramFile& file) {
  const auto wall_start = std::chrono::steady_clock::now();
  const TileGeometry geo = geometry(mc);
  std::vector<Program> programs;
  if (w.kind == "program") {
    check_program_file(file, geo);
    programs.push_back(file.program);
  } else if (w.kind == "mlp") {
    if (w.chips != 1) throw std::runtime_error("--workload mlp runs on one chip (--chips 1)");
    MlpShape s{w.m, w.k, w.hidden, w.n, w.dtype, mlp_default_shift(w.k)};
    programs.push_back(compile_mlp(s, place_mlp(s, geo), geo));
  } else if (w.chips == 1) {
    const GemmShape s{w.m, w.k, w.n, w.dtype};
    programs.push_back(compile_gemm(s, place_gemm(s, geo), geo));
  } else {
    MultiChipGemm g{{w.m, w.k, w.n, w.dtype}, w.chips, w.split};
    programs = compile_multichip(g, plan_multichip(g, geo), geo);
  }
  const auto P = static_cast<std::uint32_t>(programs.size());

  ModelSystemConfig sc;
  sc.geometry = geo;
  sc.clock_mhz = mc.clock_mhz;
  sc.ideal_memory = mem.ideal;
  sc.memory_latency_ps = static_cast<Time>(mc.mem_latency_ns * 1000 + 0.5);
  sc.memory_outstanding = mc.outstanding;
  sc.hbm = mem.cfg;
  sc.ici_gbps = mc.ici_gbps;
  const ModelSystemResult r = run_model_system(programs, sc);
  Outcome o;
  o.ok = r.finished;
  o.error = r.error;
  o.cycles = r.cycles;
  o.read_bytes = r.bytes_read;
  o.write_bytes = r.bytes_written;
  o.counters = r.counters;
  for (const auto& p : programs) o.instructions += p.size();
  if (o.cycles > 0) {
    // A program's MACs from the program run.
    const double work = w.kind == "program" ? static_cast<double>(program_macs(programs.front())) : macs(w);
    o.utilization = work / (static_cast<double>(P) * mc.rows * mc.cols * static_cast<double>(o.cycles));
    const double seconds = static_cast<double>(o.cycles) / (mc.clock_mhz * 1e6);
    o.achieved_gbps = static_cast<double>(o.read_bytes + o.write_bytes) / seconds / 1e9;
  }
  o.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return o;
}

/// The workload's shape against its own limits, before the header and any
/// point of a sweep: every size at least 1, and at most kMaxGemmDim where a
/// program is compiled (the closed form takes any); "" when it passes.
std::string check_shape(const Workload& w, bool analytic) {
  if (w.kind == "program") return "";
  const bool mlp = w.kind == "mlp";
  for (const auto& [value, option] : {std::pair{w.m, "--m"}, {w.k, "--k"}, {w.n, "--n"}, {w.hidden, "--hidden"}}) {
    if (!mlp && std::string(option) == "--hidden") continue;
    if (value == 0) return std::string(option) + " must be >= 1";
    if (!analytic && value > kMaxGemmDim)
      return std::string(option) + " must be <= " + std::to_string(kMaxGemmDim) + " (the compiler's limit, got " +
             std::to_string(value) + "; --analytic has none)";
  }
  return "";
}

std::vector<std::string> split_list(const std::string& s, const std::string& option) {
  if (s.empty()) throw std::invalid_argument("--" + option + ": empty list");
  // An empty entry ("700,,1000", "700,") is a typo: dropped, the list would run fewer points than written.
  if (s.front() == ',' || s.back() == ',' || s.find(",,") != std::string::npos)
    throw std::invalid_argument("--" + option + ": '" + s + "' has an empty entry");
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

/// A --sweep-clocks or --sweep-ici entry: a positive number (the caller checks its range).
double to_double(const std::string& s, const std::string& option) {
  // Decimal as the single options (--clock-mhz, --ici-gbps) read it.
  const std::optional<double> v = decimal_value(s);
  if (!v || !(*v > 0)) throw std::invalid_argument("--" + option + ": '" + s + "' is not a positive number");
  return *v;
}

std::pair<std::uint32_t, std::uint32_t> to_size(const std::string& s) {
  const auto x = s.find('x');
  const auto num = [&](const std::string& t) {
    if (t.empty() || t.size() > 5 || t.find_first_not_of("0123456789") != std::string::npos || std::stoul(t) == 0)
      throw std::invalid_argument("--sweep-sizes: '" + s + "' is not ROWSxCOLS");
    if (std::stoul(t) > kMaxArraySide)
      throw std::invalid_argument("--sweep-sizes: '" + s + "': rows and columns must be <= " +
                                  std::to_string(kMaxArraySide) + ", as --rows and --cols");
    return static_cast<std::uint32_t>(std::stoul(t));
  };
  if (x == std::string::npos) throw std::invalid_argument("--sweep-sizes: '" + s + "' is not ROWSxCOLS");
  return {num(s.substr(0, x)), num(s.substr(x + 1))};
}

void print(const Outcome& o, const Workload& w, const Machine& mc, bool analytic) {
  std::cout << std::fixed;
  std::cout << "cycles " << o.cycles << "  time " << std::setprecision(3)
            << static_cast<double>(o.cycles) / mc.clock_mhz << " us  utilization " << std::setprecision(4)
            << o.utilization << "\n";
  std::cout << "hbm read " << o.read_bytes << " B  write " << o.write_bytes << " B  achieved "
            << std::setprecision(2) << o.achieved_gbps << " GB/s\n";
  if (analytic) {
    std::cout << "array cycles " << o.array_cycles << " (memory unlimited)";
    // The collective runs after the array and the memory, so it is apart.
    if (w.chips > 1) std::cout << "  ici cycles " << o.ici_cycles << " (collective, added)";
    std::cout << "  roofline bound " << o.roofline_cycles;
    if (!mc.double_buffer) std::cout << "  SCALE-Sim 'Total Cycles' " << o.scalesim_cycles;
    std::cout << "\n";
    return;
  }
  std::cout << "instructions " << o.instructions << "  wall " << std::setprecision(3) << o.wall_seconds << " s\n";
  const double denom = static_cast<double>(o.cycles) * w.chips;
  std::cout << "stall breakdown (% of cycles" << (w.chips > 1 ? ", summed over chips" : "") << "):";
  for (const auto& [name, value] : o.counters)
    if (name.rfind("stall_", 0) == 0 || name.rfind("busy_", 0) == 0 || name == "array_active")
      std::cout << " " << name << "=" << std::setprecision(1) << 100.0 * static_cast<double>(value) / denom;
  std::cout << "\n";
  if (!o.ok) std::cout << "error: " << o.error << "\n";
}

nlohmann::json to_json(const Outcome& o, const Workload& w, const Machine& mc, const MemorySpec& mem, bool analytic) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["mode"] = analytic ? "analytic" : "model";
  j["status"] = o.ok ? "ok" : "error";
  j["error"] = o.error;
  j["config"] = {{"rows", mc.rows}, {"cols", mc.cols}, {"acc_rows", mc.acc_rows}, {"sp_rows", mc.sp_rows},
                 {"clock_mhz", mc.clock_mhz}, {"hbm", mc.hbm}, {"ici_gbps", mc.ici_gbps},
                 {"double_buffer", mc.double_buffer}};
  // The file a preset name resolved to: the name alone does not say which (as run's config.hbm_config).
  j["config"]["hbm_config"] = mem.path;
  // The ideal memory's own settings: without them two runs at different latencies read alike.
  if (mc.hbm == "ideal") {
    j["config"]["mem_latency_ns"] = mc.mem_latency_ns;
    j["config"]["outstanding"] = mc.outstanding;
  }
  if (analytic) {
    j["config"]["m_block"] = o.m_block;
    j["config"]["port_limit"] = mc.port_limit;
  }
  j["workload"] = {{"kind", w.kind}, {"m", w.m}, {"k", w.k}, {"n", w.n}, {"dtype", std::string(to_string(w.dtype))},
                   {"chips", w.chips}};
  if (w.chips > 1) j["workload"]["split"] = split_name(w);
  if (w.kind == "mlp") j["workload"]["hidden"] = w.hidden;
  if (w.kind == "program") j["workload"] = {{"kind", "program"}, {"file", w.program_file}};
  j["cycles"] = o.cycles;
  j["utilization"] = o.utilization;
  j["hbm_read_bytes"] = o.read_bytes;
  j["hbm_write_bytes"] = o.write_bytes;
  j["achieved_gbps"] = o.achieved_gbps;
  if (analytic) {
    j["roofline_cycles"] = o.roofline_cycles;
    j["array_cycles"] = o.array_cycles;
    j["ici_cycles"] = o.ici_cycles;
    j["scalesim_total_cycles"] = o.scalesim_cycles;
  } else {
    j["instructions"] = o.instructions;
    j["wall_seconds"] = o.wall_seconds;
    auto& perf = j["perf_counters"] = nlohmann::json::object();
    for (const auto& [name, value] : o.counters) perf[name] = value;
  }
  return j;
}

}  // namespace

int model_main(int argc, char** argv) {
  cxxopts::Options opts(argv[0],
                        "Run a workload on the MXU performance model alone (ModelTile, no RTL) and print cycles,\n"
                        "utilisation, achieved HBM bandwidth and a stall breakdown; or the closed-form model\n"
                        "(--analytic); or sweep machine parameters into a CSV (--sweep).");
  // clang-format off
  opts.add_options("array")
    ("rows", "array rows (K per fold)", cxxopts::value<std::uint32_t>()->default_value("128"))
    ("cols", "array columns (N per fold)", cxxopts::value<std::uint32_t>()->default_value("128"))
    ("acc-rows", "accumulator rows (with --analytic: the M block is the compiler's)",
     cxxopts::value<std::uint32_t>()->default_value("256"))
    ("sp-rows", "scratchpad rows (with --analytic: the M block is the compiler's)",
     cxxopts::value<std::uint32_t>()->default_value("1024"))
    ("clock-mhz", "tile clock in MHz", cxxopts::value<double>()->default_value("1000"));
  opts.add_options("workload")
    ("workload", "gemm or mlp (GEMM, ReLU + convert, GEMM)", cxxopts::value<std::string>()->default_value("gemm"))
    ("program", "run this assembly file (docs/isa.md, e.g. tests/programs/int8_matmul.s) on one chip instead of a workload",
     cxxopts::value<std::string>())
    ("m,gemm-m", "rows of A and C (--m N)", cxxopts::value<std::uint32_t>()->default_value("1024"))
    ("k,gemm-k", "inner dimension (--k N)", cxxopts::value<std::uint32_t>()->default_value("1024"))
    ("n,gemm-n", "columns of B and C (--n N)", cxxopts::value<std::uint32_t>()->default_value("1024"))
    ("hidden", "mlp: hidden features (N of layer 1, K of layer 2)", cxxopts::value<std::uint32_t>()->default_value("1024"))
    ("dtype", "int8 or bf16", cxxopts::value<std::string>()->default_value("bf16"))
    ("chips", "gemm: chips the GEMM is split across", cxxopts::value<std::uint32_t>()->default_value("1"))
    ("split", "multi-chip split: k (reduce-scatter) or n (all-gather)", cxxopts::value<std::string>()->default_value("k"));
  opts.add_options("memory and interconnect")
    ("hbm", "memory: 'ideal', a memory YAML file, or a preset name in configs/hbm/ (hbm2, hbm2e_3200, hbm2e_3600, hbm3)",
     cxxopts::value<std::string>()->default_value("hbm2e_3200"))
    ("mem-latency-ns", "ideal memory latency in ns", cxxopts::value<double>()->default_value("100"))
    ("outstanding", "ideal memory: requests in flight", cxxopts::value<std::uint32_t>()->default_value("64"))
    ("ici-gbps", "ICI link bandwidth per direction in GB/s (multi-chip)", cxxopts::value<double>()->default_value("45"));
  opts.add_options("mode")
    ("analytic", "closed-form model instead of the performance model (docs/workloads.md)")
    ("no-double-buffer", "analytic: weights not double buffered: each fold 2R + C + M - 2 cycles (SCALE-Sim's count), "
                         "then OUTPUT")
    ("m-block", "analytic: rows of A per fold (0: all of M, as SCALE-Sim, unless --acc-rows or --sp-rows is given: "
                "then the compiler's min(acc-rows, (sp-rows - 2 rows) / 3))",
     cxxopts::value<std::uint32_t>()->default_value("0"))
    ("no-port-limit", "analytic: ignore the tile's DMA rate of one 32-byte beat per cycle (only HBM bandwidth bounds traffic)")
    ("sweep", "run every combination of --sweep-sizes, --sweep-clocks, --sweep-hbm, --sweep-ici and write CSV")
    ("sweep-sizes", "sweep: array sizes, e.g. 32x32,64x64,128x128 (default: --rows x --cols)", cxxopts::value<std::string>())
    ("sweep-clocks", "sweep: clocks in MHz, e.g. 700,1000 (default: --clock-mhz)", cxxopts::value<std::string>())
    ("sweep-hbm", "sweep: memories as --hbm, e.g. hbm2,hbm3 (default: --hbm)", cxxopts::value<std::string>())
    ("sweep-ici", "sweep: ICI GB/s, e.g. 45,90 (default: --ici-gbps)", cxxopts::value<std::string>())
    ("csv", "sweep: CSV output file (default: standard output)", cxxopts::value<std::string>())
    ("json", "write the results (cycles, utilization, hbm_read_bytes, hbm_write_bytes, ...) to FILE",
     cxxopts::value<std::string>())
    ("h,help", "show this help");
  // clang-format on
  cxxopts::ParseResult args;
  if (const auto done = parse_arguments(
          opts, argc, argv, args,
          {.letters = "mkn",
           .output_files = {"json", "csv"},
           .input_files = {"program", "hbm"},
           .help_footer = "examples:\n"
                          "  mxcosim model --rows 128 --cols 128 --workload gemm --m 1024 --k 1024 --n 1024 "
                          "--dtype bf16 --json out.json\n"
                          "  mxcosim model --analytic --no-double-buffer --rows 32 --cols 32 --m 64 --k 100 --n 70\n"
                          "  mxcosim model --sweep --sweep-sizes 64x64,128x128 --sweep-hbm hbm2,hbm3 --csv sweep.csv\n"}))
    return *done;
  const auto usage = [&](const std::string& msg) {
    std::cerr << argv[0] << ": " << msg << "\n";
    return kExitUsage;
  };

  // The sweep's options mean nothing to a single run: ignored, they would look applied.
  if (!args.count("sweep"))
    for (const char* opt : {"csv", "sweep-sizes", "sweep-clocks", "sweep-hbm", "sweep-ici"})
      if (args.count(opt)) return usage(std::string("--") + opt + " is an option of --sweep");
  if (args.count("sweep") && args.count("json"))
    return usage("--json writes one run's results; a sweep writes its rows as CSV (--csv FILE)");
  // A sweep list replaces its single-value option: given both, the single value would be ignored.
  for (const auto& [list, single] : {std::pair{"sweep-sizes", "rows"}, {"sweep-sizes", "cols"},
                                     {"sweep-clocks", "clock-mhz"}, {"sweep-hbm", "hbm"}, {"sweep-ici", "ici-gbps"}})
    if (args.count(list) && args.count(single))
      return usage(std::string("give one of --") + single + " and --" + list + " (the list replaces the value)");

  Workload w;
  w.kind = args["workload"].as<std::string>();
  if (w.kind != "gemm" && w.kind != "mlp") return usage("--workload must be gemm or mlp, not '" + w.kind + "'");
  // Options another mode reads would be ignored here, and look applied.
  if (args.count("program")) {
    if (args.count("workload")) return usage("--program runs a program, not --workload " + w.kind);
    for (const auto& [option, shown] : {std::pair{"gemm-m", "--m"}, {"gemm-k", "--k"}, {"gemm-n", "--n"},
                                        {"dtype", "--dtype"}, {"hidden", "--hidden"}})
      if (args.count(option))
        return usage(std::string(shown) + " describes a workload; a --program run's shapes and types are its "
                                          "instructions'");
    w.kind = "program";
    w.program_file = args["program"].as<std::string>();
  }
  if (args.count("hidden") && w.kind == "gemm") return usage("--hidden is an option of --workload mlp");
  if (args["chips"].as<std::uint32_t>() == 1)
    for (const char* opt : {"split", "ici-gbps", "sweep-ici"})
      if (args.count(opt)) return usage(std::string("--") + opt + " is an option of a multi-chip run (--chips 2 or more)");
  // The closed form's memory is a bandwidth: an ideal one has neither latency nor a queue.
  if (args.count("analytic"))
    for (const char* opt : {"mem-latency-ns", "outstanding"})
      if (args.count(opt))
        return usage(std::string("--") + opt + " applies to the performance model; --analytic's ideal memory has " +
                     "unlimited bandwidth and no latency");
  if (!args.count("analytic") && args.count("m-block"))
    return usage("--m-block applies to --analytic (the compiler picks its own)");
  if (!args.count("analytic") && args.count("no-port-limit"))
    return usage("--no-port-limit applies to --analytic (the performance model's DMA always moves a beat a cycle)");
  // With --analytic the scratchpad and accumulators set the M block as the compiler sets it: --m-block beside
  // them would replace what they say.
  if (args.count("m-block"))
    for (const char* opt : {"acc-rows", "sp-rows"})
      if (args.count(opt))
        return usage(std::string("give one of --m-block and --") + opt + " (with --analytic, --acc-rows and " +
                     "--sp-rows set the M block as the compiler does)");
  w.m = args["gemm-m"].as<std::uint32_t>();
  w.k = args["gemm-k"].as<std::uint32_t>();
  w.n = args["gemm-n"].as<std::uint32_t>();
  w.hidden = args["hidden"].as<std::uint32_t>();
  const std::string dtype = args["dtype"].as<std::string>();
  if (dtype == "int8") w.dtype = DType::kInt8;
  else if (dtype == "bf16") w.dtype = DType::kBf16;
  else return usage("--dtype must be int8 or bf16, not '" + dtype + "'");
  w.chips = args["chips"].as<std::uint32_t>();
  if (w.chips == 0 || w.chips > 256) return usage("--chips must be in 1..256");
  const std::string split = args["split"].as<std::string>();
  if (split == "k") w.split = ChipSplit::kK;
  else if (split == "n") w.split = ChipSplit::kN;
  else return usage("--split must be k or n, not '" + split + "'");
  if (w.kind == "mlp" && w.chips != 1) return usage("--workload mlp runs on one chip (--chips 1)");
  if (w.kind == "program" && w.chips != 1) return usage("--program runs on one chip (--chips 1)");
  if (w.kind == "program" && args.count("analytic")) return usage("--analytic needs a workload, not --program");
  const bool analytic = args.count("analytic") > 0;
  if (const std::string bad = check_shape(w, analytic); !bad.empty()) return usage(bad);

  Machine mc;
  mc.rows = args["rows"].as<std::uint32_t>();
  mc.cols = args["cols"].as<std::uint32_t>();
  mc.acc_rows = args["acc-rows"].as<std::uint32_t>();
  mc.sp_rows = args["sp-rows"].as<std::uint32_t>();
  mc.clock_mhz = args["clock-mhz"].as<double>();
  mc.hbm = args["hbm"].as<std::string>();
  mc.mem_latency_ns = args["mem-latency-ns"].as<double>();
  mc.outstanding = args["outstanding"].as<std::uint32_t>();
  mc.ici_gbps = args["ici-gbps"].as<double>();
  mc.double_buffer = !args.count("no-double-buffer");
  mc.m_block = args["m-block"].as<std::uint32_t>();
  mc.compiler_m_block = args.count("acc-rows") || args.count("sp-rows");
  mc.port_limit = !args.count("no-port-limit");
  check_clock(mc.clock_mhz, "--clock-mhz");
  check_ici(mc.ici_gbps, "--ici-gbps");
  geometry(mc);  // the same array limits with --analytic
  if (!(mc.mem_latency_ns >= 0 && mc.mem_latency_ns <= 1e9)) return usage("--mem-latency-ns must be in [0, 1e9]");
  if (mc.outstanding == 0) return usage("--outstanding must be >= 1");
  // A sweep list option's entries, each parsed (and checked) by `parse`, or
  // the single value when the option is not given.
  const auto listed = [&](const std::string& option, auto single, auto parse) {
    if (!args.count(option)) return std::vector{single};
    std::vector<decltype(single)> out;
    for (const auto& s : split_list(args[option].as<std::string>(), option)) out.push_back(parse(s));
    return out;
  };
  // The clocks and memories the run or sweep uses, each checked once.
  const std::vector<double> clocks = listed("sweep-clocks", mc.clock_mhz, [](const std::string& s) {
    const double v = to_double(s, "sweep-clocks");
    check_clock(v, "--sweep-clocks: '" + s + "':");
    return v;
  });
  const std::vector<std::string> memories = listed("sweep-hbm", mc.hbm, [](const std::string& s) { return s; });
  // Each memory read once, before the first point runs, by the option that names it.
  std::map<std::string, MemorySpec> specs;
  for (const auto& h : memories)
    if (!specs.count(h)) specs.emplace(h, resolve_memory(h, args.count("sweep-hbm") ? "--sweep-hbm" : "--hbm"));
  // The ideal memory's options, with no ideal memory to read them.
  const bool ideal = std::find(memories.begin(), memories.end(), "ideal") != memories.end();
  for (const char* opt : {"mem-latency-ns", "outstanding"})
    if (args.count(opt) && !ideal) return usage(std::string("--") + opt + " applies to --hbm ideal");
  if (!mc.double_buffer && !analytic)
    return usage("--no-double-buffer applies to --analytic (the compiler always double-buffers)");

  ProgramFile program;
  if (w.kind == "program") program.program = load_program_file(w.program_file, program.source);
  const auto run = [&](const Machine& m) {
    const MemorySpec& mem = specs.at(m.hbm);
    return analytic ? run_analytic(w, m, mem) : run_model(w, m, mem, program);
  };

  if (args.count("sweep")) {
    const auto sizes = listed("sweep-sizes", std::pair{mc.rows, mc.cols},
                              [](const std::string& s) { return to_size(s); });
    const std::vector<double> icis = listed("sweep-ici", mc.ici_gbps, [](const std::string& s) {
      const double v = to_double(s, "sweep-ici");
      check_ici(v, "--sweep-ici: '" + s + "':");
      return v;
    });
    // Rows go to standard output as they come, or into the --csv file
    // once the sweep is done (a sweep stopped by an error leaves no half file).
    std::ostringstream csv_text;
    std::ostream& out = args.count("csv") ? static_cast<std::ostream&>(csv_text) : std::cout;
    out << "mode,workload,m,k,n,dtype,chips,split,rows,cols,clock_mhz,hbm,ici_gbps,cycles,time_us,utilization,"
           "hbm_read_bytes,hbm_write_bytes,achieved_gbps,status,hidden,program\n";
    // A program's shape is its own: no m, k, n or dtype; an MLP's hidden
    // size has its own column. Settings as given (a clock of 1234.5678 MHz
    // is not 1234.57), results to 6 significant digits.
    const auto exact = [](double v) {
      std::ostringstream t;
      t << std::setprecision(15) << v;
      return t.str();
    };
    const bool program = w.kind == "program";
    const std::string shape = program ? ",,," : std::to_string(w.m) + "," + std::to_string(w.k) + "," +
                                                    std::to_string(w.n) + "," + std::string(to_string(w.dtype));
    const std::string tail = "," + (w.kind == "mlp" ? std::to_string(w.hidden) : std::string()) + "," +
                             (program ? regress::csv_field(w.program_file) : std::string());
    int failed = 0;
    for (const auto& [r, c] : sizes)
      for (double clk : clocks)
        for (const auto& h : memories)
          for (double ici : icis) {
            Machine m = mc;
            m.rows = r;
            m.cols = c;
            m.clock_mhz = clk;
            m.hbm = h;
            m.ici_gbps = ici;
            // A point the workload cannot take (an MLP on a non-square array, a split the sizes do
            // not divide) is an error row, and the sweep goes on: the other points' rows stand.
            Outcome o;
            try {
              o = run(m);
            } catch (const std::exception& e) {
              o.ok = false;
              o.error = e.what();
            }
            failed += !o.ok;
            out << (analytic ? "analytic" : "model") << "," << w.kind << "," << shape << "," << w.chips << ","
                << split_name(w) << "," << r << "," << c << "," << exact(clk) << ","
                << regress::csv_field(h) << "," << exact(ici) << ",";
            if (o.ok)  // an error row has no results: empty, not 0
              out << o.cycles << "," << std::setprecision(6) << static_cast<double>(o.cycles) / clk << ","
                  << o.utilization << "," << o.read_bytes << "," << o.write_bytes << "," << o.achieved_gbps;
            else
              out << ",,,,,";
            out << "," << (o.ok ? "ok" : "error") << tail << "\n";
            std::cerr << "  " << r << "x" << c << " " << clk << " MHz " << h << " ici " << ici << ": "
                      << (o.ok ? std::to_string(o.cycles) + " cycles" : "error: " + o.error) << "\n";
          }
    if (args.count("csv")) write_output_file(args["csv"].as<std::string>(), csv_text.str());
    return failed ? kExitFail : kExitPass;
  }

  // What the one run's array cannot take, said before the header (a sweep's point is an error row).
  if (w.kind == "program") check_program_file(program, geometry(mc));
  else check_fits(w, geometry(mc), !analytic || mc.compiler_m_block);
  if (analytic) analytic_m_block(w, mc, geometry(mc));
  std::cout << "mxcosim model" << (analytic ? " (analytic)" : "") << ": " << mc.rows << "x" << mc.cols << " array at "
            << mc.clock_mhz << " MHz, ";
  if (w.kind == "program")
    std::cout << "program " << w.program_file;
  else
    std::cout << to_string(w.dtype) << " " << w.kind << " " << w.m << "x" << w.k << "x"
              << (w.kind == "mlp" ? std::to_string(w.hidden) + "x" : "") << w.n;
  if (w.chips > 1) std::cout << " on " << w.chips << " chips (" << split << " split, ICI " << mc.ici_gbps << " GB/s)";
  std::cout << ", memory " << mc.hbm << std::endl;
  const Outcome o = run(mc);
  print(o, w, mc, analytic);
  if (args.count("json")) {
    write_output_file(args["json"].as<std::string>(),
                      json_text(to_json(o, w, mc, specs.at(mc.hbm), analytic), 2) + "\n");
  }
  return o.ok ? kExitPass : kExitFail;
}

}  // namespace mxc::app
