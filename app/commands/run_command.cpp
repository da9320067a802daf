// `mxcosim run`: co-simulate a GEMM on the RTL tile and check it.
#include <cxxopts.hpp>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_args.h"
#include "command.h"
#include "cosim/gemm_run.h"

namespace mxc::app {

namespace {

nlohmann::json to_json(const GemmRunOptions& o, const GemmRunResult& r) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["status"] = r.passed ? "pass" : "fail";
  j["error"] = r.error;
  j["config"] = {{"rows", o.rows}, {"cols", o.cols}, {"dtype", std::string(to_string(o.shape.dtype))},
                 {"tile_mhz", o.tile_mhz}, {"memory_latency_ns", o.memory_latency_ps / 1000.0},
                 {"backpressure", o.backpressure}};
  j["workload"] = {{"kind", "gemm"}, {"m", o.shape.m}, {"k", o.shape.k}, {"n", o.shape.n}};
  j["seed"] = o.seed;
  j["cycles"] = {{"rtl", r.cycles}};
  j["instructions"] = r.instructions;
  j["sim_time_ns"] = r.sim_time_ps / 1000.0;
  j["wall_seconds"] = r.wall_seconds;
  j["elements_checked"] = r.elements_checked;
  j["hbm_read_bytes"] = r.bytes_read;
  j["hbm_write_bytes"] = r.bytes_written;
  auto& perf = j["perf_counters"] = nlohmann::json::object();
  for (const auto& [name, value] : r.perf) perf[name] = value;
  j["mismatch_count"] = r.mismatch_count;
  auto& list = j["mismatches"] = nlohmann::json::array();
  for (const auto& m : r.mismatches)
    list.push_back({{"time_ps", m.time}, {"where", m.where}, {"id", m.id}, {"field", m.field},
                    {"expected", m.expected}, {"actual", m.actual}});
  return j;
}

}  // namespace

int run_main(int argc, char** argv) {
  cxxopts::Options opts(argv[0], "Co-simulate a GEMM on the verilated MXU tile and check every result element\n"
                                 "against the bit-exact reference. Exits 0 on PASS, 1 on any mismatch or hang.");
  // clang-format off
  opts.add_options("array")
    ("rows", "array rows (K per fold); must be a verilated size", cxxopts::value<std::uint32_t>()->default_value("4"))
    ("cols", "array columns (N per fold)", cxxopts::value<std::uint32_t>()->default_value("4"))
    ("clock-mhz", "tile clock frequency in MHz", cxxopts::value<double>()->default_value("1000"))
    ("dtype", "data type: int8 (int8 x int8 -> int32) or bf16 (bf16 x bf16 -> fp32)",
     cxxopts::value<std::string>()->default_value("int8"));
  opts.add_options("workload")
    ("m,gemm-m", "GEMM rows of A and C (--m N)", cxxopts::value<std::uint32_t>()->default_value("16"))
    ("k,gemm-k", "GEMM inner dimension (--k N)", cxxopts::value<std::uint32_t>()->default_value("16"))
    ("n,gemm-n", "GEMM columns of B and C (--n N)", cxxopts::value<std::uint32_t>()->default_value("16"))
    ("seed", "seed of the operands and of the RTL's random initial state", cxxopts::value<std::uint64_t>()->default_value("1"));
  opts.add_options("memory")
    ("mem-latency-ns", "latency of the ideal memory in ns", cxxopts::value<double>()->default_value("100"))
    ("outstanding", "memory requests the ideal memory holds at once", cxxopts::value<std::uint32_t>()->default_value("64"))
    ("backpressure", "probability (0..1) of a random stall on each tile channel per cycle",
     cxxopts::value<double>()->default_value("0"));
  opts.add_options("output")
    ("json", "write the results (schema-versioned JSON) to FILE", cxxopts::value<std::string>())
    ("waveform", "dump an FST waveform of the whole run to FILE", cxxopts::value<std::string>())
    ("inject-fault", "flip bit 0 of result element INDEX before checking (shows the checker failing)",
     cxxopts::value<std::uint64_t>())
    ("max-mismatches", "mismatches to print", cxxopts::value<std::size_t>()->default_value("5"))
    ("h,help", "show this help");
  // clang-format on
  cxxopts::ParseResult args;
  try {
    NormalizedArgs normalized(argc, argv, "mkn");
    args = opts.parse(normalized.argc(), normalized.argv());
  } catch (const cxxopts::exceptions::exception& e) {
    std::cerr << argv[0] << ": " << e.what() << "\n(see " << argv[0] << " --help)\n";
    return kExitUsage;
  }
  if (args.count("help")) {
    std::cout << opts.help() << "\n";
    return kExitPass;
  }
  if (!args.unmatched().empty()) {
    std::cerr << argv[0] << ": unexpected argument '" << args.unmatched().front() << "'\n";
    return kExitUsage;
  }

  GemmRunOptions o;
  o.rows = args["rows"].as<std::uint32_t>();
  o.cols = args["cols"].as<std::uint32_t>();
  o.tile_mhz = args["clock-mhz"].as<double>();
  o.shape.m = args["gemm-m"].as<std::uint32_t>();
  o.shape.k = args["gemm-k"].as<std::uint32_t>();
  o.shape.n = args["gemm-n"].as<std::uint32_t>();
  o.seed = args["seed"].as<std::uint64_t>();
  const double latency_ns = args["mem-latency-ns"].as<double>();
  if (!(latency_ns >= 0) || latency_ns > 1e9) {
    std::cerr << argv[0] << ": --mem-latency-ns must be in [0, 1e9]\n";
    return kExitUsage;
  }
  o.memory_latency_ps = static_cast<Time>(latency_ns * 1000.0 + 0.5);
  o.memory_outstanding = args["outstanding"].as<std::uint32_t>();
  o.backpressure = args["backpressure"].as<double>();
  if (!(o.backpressure >= 0.0 && o.backpressure < 1.0)) {
    std::cerr << argv[0] << ": --backpressure must be in [0, 1)\n";
    return kExitUsage;
  }
  const std::string dtype = args["dtype"].as<std::string>();
  if (dtype == "int8") {
    o.shape.dtype = DType::kInt8;
  } else if (dtype == "bf16") {
    o.shape.dtype = DType::kBf16;
  } else {
    std::cerr << argv[0] << ": --dtype must be int8 or bf16, not '" << dtype << "'\n";
    return kExitUsage;
  }
  if (args.count("waveform")) o.waveform = args["waveform"].as<std::string>();
  if (args.count("inject-fault")) o.inject_fault = args["inject-fault"].as<std::uint64_t>();

  std::cout << "mxcosim run: " << o.rows << "x" << o.cols << " " << to_string(o.shape.dtype) << " array at "
            << o.tile_mhz << " MHz, GEMM "
            << o.shape.m << "x" << o.shape.k << "x" << o.shape.n << ", seed " << o.seed << std::endl;
  const GemmRunResult r = run_gemm_cosim(o);

  std::cout << (r.passed ? "PASS" : "FAIL") << "  cycles " << r.cycles << "  instructions " << r.instructions
            << "  checked " << r.elements_checked << " elements, " << r.mismatch_count << " mismatch"
            << (r.mismatch_count == 1 ? "" : "es") << "  sim " << std::fixed << std::setprecision(3)
            << r.sim_time_ps / 1e6 << " us  wall " << std::setprecision(2) << r.wall_seconds << " s\n";
  if (!r.error.empty()) std::cout << "  error: " << r.error << "\n";
  const std::size_t show = std::min(args["max-mismatches"].as<std::size_t>(), r.mismatches.size());
  for (std::size_t i = 0; i < show; ++i)
    std::cout << (i == 0 ? "  first mismatch: " : "  mismatch: ") << to_string(r.mismatches[i]) << "\n";
  if (r.mismatch_count > show) std::cout << "  ... " << r.mismatch_count - show << " more\n";
  if (!o.waveform.empty()) std::cout << "  waveform: " << o.waveform << "\n";
  if (!r.perf.empty()) {
    std::cout << "  counters:";
    for (const auto& [name, value] : r.perf) std::cout << " " << name << "=" << value;
    std::cout << "\n";
  }

  if (args.count("json")) {
    const std::string path = args["json"].as<std::string>();
    std::ofstream out(path);
    out << to_json(o, r).dump(2) << "\n";
    if (!out) {
      std::cerr << argv[0] << ": cannot write '" << path << "'\n";
      return kExitUsage;
    }
  }
  return r.passed ? kExitPass : kExitFail;
}

}  // namespace mxc::app
