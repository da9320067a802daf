// `mxcosim run [CONFIG]`: co-simulate a workload on the configured system
// (RTL tiles against the functional reference and, when configured, the
// performance model) and report every disagreement.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bridge/rtl_tile.h"
#include "bridge/waveform_check.h"
#include "cli_args.h"
#include "cosim/json_text.h"
#include "memory_options.h"
#include "command.h"
#include "models/core/clock_domain.h"
#include "models/core/output_file.h"
#include "models/mxu/gemm_program.h"
#include "serve_command.h"
#include "cosim/results_json.h"
#include "cosim/system_run.h"
#include "progress_line.h"
#include "stop_signals.h"

namespace mxc::app {

namespace {

void print_summary(const SystemRunOptions& o, const SystemRunResult& r, std::size_t max_mismatches) {
  std::cout << (r.passed ? "PASS" : "FAIL") << "  cycles " << r.rtl_cycles;
  if (r.model_cycles) {
    // A run stopped before its end (a hang) has cycle counts of where each side stopped, not a
    // difference in speed: as results.json's cycle_error_percent, no diff then.
    const auto diff = static_cast<std::int64_t>(r.rtl_cycles) - static_cast<std::int64_t>(*r.model_cycles);
    std::cout << " (model " << *r.model_cycles;
    if (r.error.empty()) std::cout << ", diff " << diff;
    std::cout << ")";
  }
  std::cout << "  instructions " << r.instructions << "  checked " << r.elements_checked << " elements, "
            << r.mismatch_count << " mismatch" << (r.mismatch_count == 1 ? "" : "es")
            // Cycles outside tolerance are counted with the data: said apart, they do not read as bad elements.
            << (r.timing.mismatches ? " (" + std::to_string(r.timing.mismatches) + " in timing)" : "") << "  sim "
            << std::fixed
            << std::setprecision(3) << r.sim_time_ps / 1e6 << " us  wall " << std::setprecision(2) << r.wall_seconds
            << " s\n";
  if (!r.error.empty()) std::cout << "  error: " << r.error << "\n";
  const std::size_t show = std::min(max_mismatches, r.mismatches.size());
  for (std::size_t i = 0; i < show; ++i)
    std::cout << (i == 0 ? "  first mismatch: " : "  mismatch: ") << to_string(r.mismatches[i]) << "\n";
  if (r.mismatch_count > show) std::cout << "  ... " << r.mismatch_count - show << " more\n";
  if (!r.undefined_reads.empty())
    std::cout << "  warning: the program reads what no instruction wrote, which the RTL holds as random values "
                 "(from the seed) and the reference as 0, so results built on it differ: "
              << r.undefined_reads.front()
              << (r.undefined_reads.size() > 1
                      ? " (and " + std::to_string(r.undefined_reads.size() - 1) + " more in the --json results)"
                      : "")
              << "\n";
  std::cout << std::setprecision(1) << "  utilization " << 100.0 * r.utilization << " %  memory "
            << std::setprecision(2) << r.bandwidth_gbps << " GB/s (" << r.hbm_read_bytes << " B read, "
            << r.hbm_write_bytes << " B written)  ICI " << r.ici_bytes << " B\n";
  // Only memory is compared: what a program leaves in the scratchpad or the accumulators is not.
  if (o.workload.kind == "program" && r.hbm_write_bytes == 0 && r.error.empty())
    std::cout << "  warning: the program stores nothing to memory, and only memory is compared with the reference: "
                 "its results in the scratchpad and the accumulators are not checked (store them with dma_store)\n";
  if (r.hbm_requests_beyond_capacity)
    std::cout << "  warning: " << r.hbm_requests_beyond_capacity
              << " HBM requests reached past the stacks' capacity, each timed as the lower address it wraps to "
                 "(DMA addresses beyond the configured memory, or too few stacks?)\n";
  // An RTL tile the workload gave nothing is not checked at all: a PASS says nothing of it.
  std::string idle;
  std::size_t rtl = 0, rtl_idle = 0;
  for (const auto& t : r.tiles) {
    if (t.kind != TileKind::kRtl) continue;
    ++rtl;
    if (t.instructions == 0) idle += (idle.empty() ? "" : ", ") + t.name, ++rtl_idle;
  }
  if (!idle.empty())
    std::cout << "  warning: RTL " << idle << " ran no instruction: the workload gave it none (a GEMM's column "
              << "blocks go to the first tiles; an MLP or a program runs on tile 0), so nothing of it is checked"
              << (rtl_idle == rtl && r.error.empty() ? "; no RTL tile ran any, so this run checks no RTL at all" : "")
              << "\n";
  if (o.system.chips * o.system.tiles_per_chip == 1 && !r.tiles.empty()) {
    std::cout << "  counters:";
    for (const auto& [name, value] : r.tiles[0].perf) std::cout << " " << name << "=" << value;
    std::cout << "\n";
  } else {
    for (const auto& t : r.tiles)
      std::cout << "  " << t.name << (t.kind == TileKind::kRtl ? " (rtl)" : " (model)") << ": cycles " << t.cycles
                << (o.system.compare_model ? ", model " + std::to_string(t.model_cycles) : std::string()) << "\n";
  }
}

// `s` as one word to a POSIX shell: as it is when every character is one no shell treats
// specially, else in single quotes (an empty word too).
std::string shell_quote(const std::string& s) {
  const auto plain = [](unsigned char c) { return std::isalnum(c) || std::strchr("_-+=,./:@%", c); };
  if (!s.empty() && std::all_of(s.begin(), s.end(), plain)) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The same run in one process: the arguments without the transport's (a run with served
// models, split or not, gives the in-process results byte for byte), and `wave` if given.
std::string in_process_command(const std::vector<std::string>& args, const std::string& wave) {
  static const std::set<std::string> transport = {"--connect", "--chips", "--reply-timeout"};
  std::ostringstream cmd;
  cmd << "mxcosim run";
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (transport.count(a.substr(0, a.find('=')))) {
      if (a.find('=') == std::string::npos) ++i;  // and its value
      continue;
    }
    cmd << " " << shell_quote(a);
  }
  if (!wave.empty()) cmd << " --wave " << shell_quote(wave);
  return cmd.str();
}

}  // namespace

int run_main(int argc, char** argv) {
  const std::vector<std::string> original(argv + 1, argv + argc);
  cxxopts::Options opts(argv[0],
                        "Co-simulate a workload on the configured system: RTL tiles checked element by element\n"
                        "against the bit-exact reference and, when the system compares the model, instruction by\n"
                        "instruction against the performance model. Without CONFIG a built-in system (one chip,\n"
                        "one 4x4 RTL tile, ideal memory). Exits 0 on PASS, 1 on any mismatch or hang, 2 on bad input,\n"
                        "130 when stopped by SIGINT, SIGTERM or SIGHUP (its results so far are kept; a second\n"
                        "signal kills it).");
  // clang-format off
  opts.add_options("system")
    ("config", "system configuration YAML (configs/*.yaml)", cxxopts::value<std::string>())
    ("rows", "array rows of every tile (overrides the config); a verilated size when any tile is RTL",
     cxxopts::value<std::uint32_t>())
    ("cols", "array columns of every tile (overrides the config)", cxxopts::value<std::uint32_t>())
    ("clock-mhz", "tile clock frequency in MHz (overrides the config)", cxxopts::value<double>())
    ("backpressure", "probability in [0, 1) of a random stall on each RTL tile channel per cycle", cxxopts::value<double>())
    ("model", "run the performance model beside the RTL and correlate timing (overrides the config)")
    ("no-model", "do not run the performance model")
    ("threads", "1: run everything on one thread; 2: the performance model on a second thread, beside the RTL "
                "(the default; results are identical)", cxxopts::value<unsigned>()->default_value("2"))
    ("mutant", "run every RTL tile as the mutant NAME, a 4x4 tile with an injected bug (docs/mutants.md; "
               "built with -DMXCOSIM_RTL_MUTANTS)", cxxopts::value<std::string>());
  add_memory_options(opts, "system");
  opts.add_options("workload")
    ("workload", "workload kind: gemm, mlp (two layers: m x k -> hidden -> n) or program",
     cxxopts::value<std::string>()->default_value("gemm"))
    ("program", "run an assembly program (docs/isa.md) on tile 0 of every chip and check every byte of memory it "
                "writes; given once per chip of the system instead, chip c runs the c-th FILE",
     cxxopts::value<std::string>())
    ("split", "gemm over several chips: none (each chip its own), k (reduce-scatter) or n (all-gather)",
     cxxopts::value<std::string>()->default_value("none"))
    ("hidden", "mlp: hidden features (default: n)", cxxopts::value<std::uint32_t>())
    ("m,gemm-m", "GEMM rows of A and C (--m N)", cxxopts::value<std::uint32_t>()->default_value("16"))
    ("k,gemm-k", "GEMM inner dimension (--k N)", cxxopts::value<std::uint32_t>()->default_value("16"))
    ("n,gemm-n", "GEMM columns of B and C (--n N)", cxxopts::value<std::uint32_t>()->default_value("16"))
    ("dtype", "int8 (int8 x int8 -> int32) or bf16 (bf16 x bf16 -> fp32)", cxxopts::value<std::string>()->default_value("int8"))
    ("seed", "seed of the operands, the RTL's initial state and all random stalls", cxxopts::value<std::uint64_t>()->default_value("1"));
  opts.add_options("transport")
    ("connect", "use the memories and fabric served by `mxcosim serve` at ADDR (tcp://HOST:PORT, HOST an IP "
                "address or a host name, or unix:PATH; docs/transport.md); results are identical to a local run",
     cxxopts::value<std::string>())
    ("reply-timeout", "with --connect: seconds to wait for the server before failing the run",
     cxxopts::value<double>()->default_value("10"))
    ("chips", "with --connect: run only these chips' tiles (LIST: comma-separated, e.g. 0 or 0,2); the other chips "
              "run in other `mxcosim run --connect --chips` processes on the same server, one system split over "
              "them; every process writes the whole, identical results", cxxopts::value<std::string>());
  opts.add_options("output")
    ("json", "write the results (schema-versioned JSON, docs/results.md) to FILE", cxxopts::value<std::string>())
    ("wave", "dump an FST waveform of the run (RTL tile 0 of chip 0) to FILE", cxxopts::value<std::string>())
    ("waveform", "same as --wave", cxxopts::value<std::string>())
    ("trace", "write a timeline (Chrome trace-event JSON; gzip when FILE ends in .gz) that Perfetto opens: "
              "instructions, memory requests and ICI packets of every tile (a split run, --chips: those of its own "
              "chips, and the whole model shadow; docs/transport.md)", cxxopts::value<std::string>())
    ("wave-window", "cycles before the first mismatch the automatic failure waveform covers",
     cxxopts::value<std::uint64_t>()->default_value("2000"))
    ("no-fail-wave", "on failure, do not re-run to dump a waveform around the first mismatch")
    ("inject-fault", "flip bit 0 of result element INDEX before checking (shows the checker failing)",
     cxxopts::value<std::uint64_t>())
    ("max-mismatches", "mismatches to print", cxxopts::value<std::size_t>()->default_value("5"))
    ("progress", "print a progress line on standard error (default: when it is a terminal)")
    ("h,help", "show this help");
  // clang-format on
  opts.parse_positional({"config"});
  opts.positional_help("[CONFIG]");
  cxxopts::ParseResult args;
  const std::vector<std::string_view> outputs = {"json", "wave", "waveform", "trace"};
  if (const auto done = parse_arguments(opts, argc, argv, args,
                                        {.letters = "mkn",
                                         .output_files = outputs,
                                         .input_files = {"config", "program"},
                                         .positional = {{"config", "CONFIG"}},
                                         .repeatable = {"program"}}))
    return *done;

  // From here a signal stops the run where it is (one while the workload is still being built,
  // at its start), which then ends as a run cut short (its summary, --json, a waveform closed
  // whole) and exits 130; a second signal kills.
  const StopSignals signals(true);
  SystemRunOptions o;
  o.stop = StopSignals::flag();
  o.stop_cause = &StopSignals::named;
  o.system = args.count("config") ? load_system_config(args["config"].as<std::string>()) : default_system_config();
  SystemConfig& c = o.system;
  // The files the config refers to are inputs too.
  if (c.memory == "hbm" && !c.hbm_config.empty())
    refuse_output_over(args, outputs, c.hbm_config, "the HBM preset the config reads (system.memory.config)");
  if (!c.ici_config.empty())
    refuse_output_over(args, outputs, c.ici_config, "the fabric the config reads (system.fabric.config)");
  if (args.count("rows")) c.rows = args["rows"].as<std::uint32_t>();
  if (args.count("cols")) c.cols = args["cols"].as<std::uint32_t>();
  if (args.count("clock-mhz")) c.tile_mhz = args["clock-mhz"].as<double>();
  apply_memory_options(args, c);
  if (args.count("backpressure")) c.backpressure = args["backpressure"].as<double>();
  if (args.count("model") && args.count("no-model")) throw std::invalid_argument("give one of --model and --no-model");
  if (args.count("model")) c.compare_model = true;
  if (args.count("no-model")) c.compare_model = false;
  // An error about a field an option set names the option: a line of the file would blame a
  // value the run does not use (apply_memory_options notes its own).
  for (const auto& [opt, field] : {std::pair{"rows", "system.tile.rows"},
                                   {"cols", "system.tile.cols"},
                                   {"clock-mhz", "system.tile.clock_mhz"},
                                   {"backpressure", "system.checks.backpressure"}})
    if (args.count(opt)) c.set_by_option[field] = std::string("--") + opt;
  try {
    validate(c);
    // An RTL tile is one of the verilated sizes: named by the field (or the option) that chose
    // the size, not only when the run builds its tiles.
    if (has_rtl_tile(c)) {
      try {
        rtl_tile_geometry(c.rows, c.cols);
      } catch (const std::invalid_argument& e) {
        const auto sizes = rtl_tile_sizes();
        const bool rows_built =
            std::any_of(sizes.begin(), sizes.end(), [&](const auto& rc) { return rc.first == c.rows; });
        const std::string field = rows_built ? "system.tile.cols" : "system.tile.rows";
        throw ConfigFieldError(config_where(c, field), field, e.what());
      }
    }
    check_fabric_latency(c);
  } catch (const std::invalid_argument& e) {
    // The value at fault may be the command line's, not the file's: said, unless the message
    // already starts with the option that set it (config_where).
    if (std::string_view(e.what()).starts_with("--")) throw;
    std::string given;
    for (const auto& [field, opt] : c.set_by_option) given += (given.empty() ? "" : ", ") + opt;
    if (given.empty()) throw;
    throw std::invalid_argument(std::string(e.what()) + " (the command line set " + given + ")");
  }
  // Random stalls are of RTL tiles' channels: on a system without one the option would do nothing.
  const bool any_rtl = has_rtl_tile(c);
  if (args.count("backpressure") && c.backpressure > 0 && !any_rtl)
    throw std::invalid_argument("--backpressure stalls RTL tiles' channels, and every tile here is a "
                                "performance model");
  // The model has no random stalls: its timing cannot match, which would read as RTL bugs.
  if (c.backpressure > 0 && any_rtl && c.compare_model && c.tolerance_cycles == 0 && c.tolerance_percent == 0)
    std::cerr << "mxcosim run: warning: backpressure " << c.backpressure
              << " stalls the RTL at random and the performance model does not, so timing will not match; "
                 "--no-model checks data and protocol only\n";

  o.workload.kind = args["workload"].as<std::string>();
  if (args.count("program") && args.count("workload") && o.workload.kind != "program")
    throw std::invalid_argument("--program runs a program, not --workload " + o.workload.kind);
  if (args.count("program")) {
    o.workload.kind = "program";
    o.workload.program_files = option_values(args, "program");
    // One file every chip runs, or one per chip.
    const std::size_t given = o.workload.program_files.size();
    if (given != 1 && given != c.chips)
      throw std::invalid_argument("--program given " + std::to_string(given) + " times for a " +
                                  std::to_string(c.chips) + "-chip system: give it once (every chip runs the file) " +
                                  "or " + std::to_string(c.chips) + " times (chip c runs the c-th file)");
  }
  if (o.workload.kind == "program" && o.workload.program_files.empty())
    throw std::invalid_argument("--workload program needs --program FILE");
  o.workload.split = args["split"].as<std::string>();
  o.workload.hidden = args.count("hidden") ? args["hidden"].as<std::uint32_t>() : 0;  // 0: n
  // Options another workload reads would be ignored here, and look applied.
  const std::string workload_named = o.workload.kind == "program" ? "a --program run" : o.workload.kind;
  if (args.count("hidden") && o.workload.kind != "mlp")
    throw std::invalid_argument("--hidden is an option of --workload mlp, not " + workload_named);
  if (args.count("hidden") && o.workload.hidden == 0)
    throw std::invalid_argument("--hidden must be >= 1 (without it the hidden layer has n features)");
  if (args.count("split") && o.workload.kind != "gemm")
    throw std::invalid_argument("--split is an option of --workload gemm, not " + workload_named);
  if (o.workload.kind == "program")
    for (const auto& [option, shown] : {std::pair{"gemm-m", "--m"}, {"gemm-k", "--k"}, {"gemm-n", "--n"},
                                        {"dtype", "--dtype"}})
      if (args.count(option))
        throw std::invalid_argument(std::string(shown) + " is an option of --workload gemm and mlp, not a " +
                                    "--program run (its instructions give their shapes and types)");
  o.workload.shape.m = args["gemm-m"].as<std::uint32_t>();
  o.workload.shape.k = args["gemm-k"].as<std::uint32_t>();
  o.workload.shape.n = args["gemm-n"].as<std::uint32_t>();
  const std::string dtype = args["dtype"].as<std::string>();
  if (dtype != "int8" && dtype != "bf16") throw std::invalid_argument("--dtype must be int8 or bf16, not '" + dtype + "'");
  o.workload.shape.dtype = dtype == "bf16" ? DType::kBf16 : DType::kInt8;
  // An array too tall for a GEMM's scratchpad, named by the field or the option that set its rows
  // (a program may use such an array: its instructions say what they need).
  if (o.workload.kind != "program") {
    try {
      validate(GemmShape{1, 1, 1, o.workload.shape.dtype}, rtl_like_geometry(c.rows, c.cols));
    } catch (const std::invalid_argument& e) {
      if (args.count("rows")) throw std::invalid_argument("--rows " + std::to_string(c.rows) + ": " + e.what());
      throw ConfigFieldError(config_where(c, "system.tile.rows"), "system.tile.rows", e.what());
    }
  }
  o.seed = args["seed"].as<std::uint64_t>();
  const unsigned threads = args["threads"].as<unsigned>();
  if (threads != 1 && threads != 2) throw std::invalid_argument("--threads must be 1 or 2, not " + std::to_string(threads));
  o.shadow_thread = threads == 2;
  // One waveform per run: of two files, one would be silently left unwritten.
  if (args.count("wave") && args.count("waveform")) throw std::invalid_argument("give one of --wave and --waveform");
  const char* const wave_option = args.count("wave") ? "wave" : args.count("waveform") ? "waveform" : nullptr;
  // The waveform is tile 0 of chip 0's RTL: with a model tile there, no file
  // would be written.
  const bool rtl_first = !c.tile_kinds.empty() && c.tile_kinds.front() == TileKind::kRtl;
  if (wave_option && !rtl_first)
    throw std::invalid_argument(std::string("--") + wave_option +
                                ": tile 0 of every chip is a performance-model tile here; a waveform is of an RTL "
                                "tile");
  std::string wave = wave_option ? replaceable_output_path(args[wave_option].as<std::string>(),
                                                           std::string("--") + wave_option)
                                 : "";
  o.waveform = wave;
  if (args.count("trace")) o.trace = args["trace"].as<std::string>();
  if (args.count("inject-fault")) o.inject_fault = args["inject-fault"].as<std::uint64_t>();
  if (args.count("mutant")) {
    o.mutant = args["mutant"].as<std::string>();
    // A mutant with nothing to mutate would pass and read as a bug the checkers missed.
    if (o.mutant.empty()) throw std::invalid_argument("--mutant: needs a name (docs/mutants.md)");
    if (!any_rtl)
      throw std::invalid_argument("--mutant " + o.mutant + ": the system has no RTL tile to run it");
  }
  if (args.count("wave-window") && args.count("no-fail-wave"))
    throw std::invalid_argument("--wave-window sizes the failure waveform, which --no-fail-wave turns off");
  ProgressLine progress_line;  // cleared when the run ends, or fails
  if (args.count("progress") || isatty(STDERR_FILENO)) {
    o.on_progress = [&progress_line](double ns, std::size_t done, std::size_t total) {
      std::ostringstream line;
      line << "  ... " << std::fixed << std::setprecision(1) << ns / 1000.0 << " us simulated, " << done << "/"
           << total << " instructions";
      progress_line.show(line.str());
    };
  }

  if (args.count("reply-timeout") && !args.count("connect"))
    throw std::invalid_argument("--reply-timeout is an option of --connect (a run over a server)");
  std::vector<std::uint32_t> chips;
  if (args.count("chips")) {
    if (!args.count("connect")) throw std::invalid_argument("--chips needs --connect (a split run over a server)");
    std::stringstream list(args["chips"].as<std::string>());
    for (std::string item; std::getline(list, item, ',');) {
      std::size_t used = 0;
      unsigned long v = 0;
      try {
        v = std::stoul(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != item.size() || v >= c.chips)
        throw std::invalid_argument("--chips: '" + item + "' is not a chip of the system (0.." +
                                    std::to_string(c.chips - 1) + ")");
      chips.push_back(static_cast<std::uint32_t>(v));
    }
    if (chips.empty()) throw std::invalid_argument("--chips: empty list");
    std::sort(chips.begin(), chips.end());
    chips.erase(std::unique(chips.begin(), chips.end()), chips.end());
    if (chips.size() == c.chips) chips.clear();  // every chip here: an ordinary --connect run
    if (wave_option && !chips.empty() && chips.front() != 0)
      throw std::invalid_argument(std::string("--") + wave_option +
                                  ": the waveform is of chip 0, which another process of this split run runs");
  }
  // Built once, first: a bad input (an array size without RTL, a program, a
  // shape) is said before the run's header and before a server's session is
  // taken for it.
  const Workload work = build_run_workload(o);
  // Said before the run's header, as every input error (the run checks them again as it starts).
  if (!o.mutant.empty()) {
    try {
      check_rtl_mutant(o.mutant, c.rows, c.cols);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--mutant " + o.mutant + ": " + e.what());
    }
  }
  fault_region(o, work);
  std::string served;
  if (args.count("connect"))
    served = connect_run(o, args["connect"].as<std::string>(), args["reply-timeout"].as<double>(), chips);

  std::cout << "mxcosim run: " << c.chips << " chip" << (c.chips == 1 ? "" : "s") << " x " << c.tiles_per_chip
            << " tile" << (c.tiles_per_chip == 1 ? "" : "s") << " of " << c.rows << "x" << c.cols << " at "
            << c.tile_mhz << " MHz, " << c.memory << " memory"
            << (c.memory == "ideal" ? " (" + shortest(static_cast<double>(c.ideal_latency_ps) / 1000.0) + " ns, " +
                                          std::to_string(c.ideal_outstanding) + " in flight)"
                                    : std::string())
            << ", " << work.description << ", seed " << o.seed
            << (c.compare_model ? ", model compared" : "") << std::endl;
  if (!served.empty()) std::cout << "  " << served << "\n";
  SystemRunResult r;
  // A run that ends with no results: an earlier run's --json would read as this run's.
  const auto remove_earlier_results = [&] {
    progress_line.clear();
    if (!args.count("json")) return;
    const std::string json = args["json"].as<std::string>();
    std::error_code ec;
    if (std::filesystem::remove(json, ec)) std::cout << "  no results: " << json << " (an earlier run's) removed\n";
  };
  const auto stopped_without_results = [&](const std::string& why) {
    remove_earlier_results();
    std::cout << "  error: " << why << "\n  reproduce in one process: " << in_process_command(original, "")
              << std::endl;
    return kExitStopped;
  };
  try {
    r = run_system(o, work);
  } catch (const SplitRunInterrupted& e) {
    // Another client of the split run was stopped by a signal: so is the run, here too.
    return stopped_without_results(e.what());
  } catch (const std::exception& e) {
    // Stopped by a signal while waiting for the server (a split run's other clients not there,
    // or stalled): the wait gave way to it.
    if (!served.empty() && StopSignals::flag()->load()) return stopped_without_results(e.what());
    // A run that failed (a split run's peer or server gone, a transport error) has no results.
    remove_earlier_results();
    // A run over a server that fails (a split run whose chips stop early, a transport error):
    // the same run in one process gives what the whole run would have.
    if (!served.empty()) std::cout << "  reproduce in one process: " << in_process_command(original, "") << std::endl;
    throw;
  }
  progress_line.clear();
  // A waveform whose writes failed (a full file system) is closed cut short
  // without a word from the writer: found here, removed, and the run's
  // results stand but it ends as an error (below).
  const std::string wave_damage = wave.empty() ? "" : remove_fst_if_damaged(wave);
  print_summary(o, r, args["max-mismatches"].as<std::size_t>());
  if (!r.split_stopped.empty())
    std::cout << "  split run: " << r.split_stopped << "; these are the results of the whole run, re-run in this "
              << "process\n";
  if (!wave.empty()) std::cout << "  waveform: " << (wave_damage.empty() ? wave : "not written (see below)") << "\n";
  if (!o.trace.empty())
    std::cout << "  timeline: " << (r.trace_error.empty() ? o.trace : "not written whole (see below)") << "\n";
  if (r.timing.compared)
    std::cout << "  timing: " << r.timing.instructions << " instructions and " << r.timing.memory_requests
              << " memory requests compared, " << r.timing.mismatches << " outside tolerance, mean |error| "
              << std::setprecision(2) << r.timing.mean_abs_instr_error << " cycles\n";

  // The results are kept before anything else can go wrong or take long: the summary is flushed
  // and --json written before the failure waveform's re-run, which simulates the run again (a
  // job stopped by its time limit meanwhile still leaves them). An output that fails (a full
  // disk, a standard output nobody reads) is said once everything else is written: exit 2
  // after a pass, the run's 1 after a failure.
  std::cout.flush();
  std::vector<std::string> errors;
  if (args.count("json")) {
    try {
      write_output_file(args["json"].as<std::string>(), json_text(results_json(o, r), 2) + "\n");
    } catch (const std::exception& e) {
      errors.push_back(e.what());
    }
  }

  // On failure, a deterministic re-run dumps the cycles before the first mismatch. It runs the
  // whole system in this process, every model local: with served models, split or not, the
  // results are the same. Of a split run's clients, the one running chip 0 (whose tile 0 the
  // waveform shows) re-runs; the others say so. Every failing run says how to reproduce it,
  // with the waveform the re-run wrote (or would have) when there is one.
  std::string reproduce_wave;
  // Stopped by a signal: nothing failed to show, and the user asked to stop, not to re-run. A
  // signal after the run, during the re-run for the failure waveform, costs the waveform only:
  // the run's results are whole, and its verdict (exit 1) stands.
  const bool fail_wave = !r.passed && wave.empty() && any_rtl && !args.count("no-fail-wave");
  if (fail_wave && r.interrupted) {
    std::cout << "  failure waveform: none (" << StopSignals::named() << " stopped the run, no failure did)\n";
  } else if (fail_wave && StopSignals::flag()->load()) {
    std::cout << "  failure waveform: not made (stopped by " << StopSignals::named() << ")\n";
  } else if (fail_wave) {
    const std::uint64_t period = ClockDomain::from_mhz("tile", c.tile_mhz).period();
    const Time at = r.mismatches.empty() ? r.sim_time_ps : r.mismatches.front().time;
    // The waveform is of chip 0's tile 0, which may have ended before the failure's time (a
    // data mismatch no write covers, a byte never written, is stamped at the run's end, after
    // the other tiles and the fabric's drain): the window ends with that tile.
    const std::uint64_t last_cycle = r.tiles.empty() ? ~std::uint64_t{0} : r.tiles.front().cycles;
    const std::uint64_t fail_cycle = std::min(period ? at / period : 0, last_cycle);
    const std::uint64_t window = args["wave-window"].as<std::uint64_t>();
    SystemRunOptions again = o;
    again.on_progress = nullptr;  // again.stop kept: a signal stops the re-run too
    again.trace.clear();
    // In this process, every model local: a run with served models gives the same results.
    again.make_memory = nullptr;
    again.make_fabric = nullptr;
    again.make_port = nullptr;
    again.chips.clear();
    // Beside the results file when that is a plain file, new or not (not a link such as
    // /dev/stdout, nor a device), else in the working directory.
    std::filesystem::path dir;
    if (args.count("json")) {
      const std::filesystem::path json = args["json"].as<std::string>();
      std::error_code ec;
      const auto st = std::filesystem::symlink_status(json, ec);
      if (!std::filesystem::exists(st) || std::filesystem::is_regular_file(st)) dir = json.parent_path();
    }
    const std::string name = (dir / ("mxcosim-fail-seed" + std::to_string(o.seed) + ".fst")).string();
    again.waveform_from_cycle = fail_cycle > window ? fail_cycle - window : 0;
    again.waveform_to_cycle = fail_cycle + 16;
    // Nothing after the window is dumped: the re-run stops a cycle past it (a failure early in
    // a long run took the whole run's time again).
    again.stop_after_ps = (again.waveform_to_cycle + 1) * period;
    if (!rtl_first) {
      again.waveform.clear();  // the reproduce line asks for none
      std::cout << "  failure waveform: none (tile 0 of chip 0 is a performance-model tile)\n";
    } else if (o.chips.empty() || o.chips.front() == 0) {
      // The waveform is a help, not the verdict: a place it cannot go, or a re-run that fails,
      // is said and the run still fails with its own results. Not over a file this run wrote
      // or read (the reproduce line then asks for none).
      std::string clash;
      for (const char* opt : {"trace", "json", "program", "config"})
        for (const std::string& file : !args.count(opt) ? std::vector<std::string>{}
                                       : std::string_view(opt) == "program"
                                           ? option_values(args, opt)
                                           : std::vector{args[opt].as<std::string>()}) {
          std::error_code ec;
          if (clash.empty() && std::filesystem::equivalent(name, file, ec)) clash = opt;
        }
      if (!clash.empty()) {
        again.waveform.clear();
        std::cout << "  failure waveform: not written (" << name << " is the " << clash << " file)\n";
      } else {
        try {
          check_output_path(name, "failure waveform");
          again.waveform = replaceable_output_path(name, "failure waveform");
          if (run_system(again, work).interrupted) {
            std::error_code ec;  // a window cut short shows no failure: not kept
            std::filesystem::remove(again.waveform, ec);
            throw std::runtime_error("stopped by " + StopSignals::named());
          }
          if (const std::string damage = remove_fst_if_damaged(again.waveform); !damage.empty())
            throw std::runtime_error(again.waveform + " came out incomplete: " + damage +
                                     "; is its file system full?");
          std::cout << "  failure waveform (cycles " << again.waveform_from_cycle << ".." << again.waveform_to_cycle
                    << "): " << again.waveform << "\n";
        } catch (const std::exception& e) {
          again.waveform = name;
          std::cout << "  failure waveform: not written (" << e.what() << ")\n";
        }
      }
    } else {
      again.waveform = name;
      std::cout << "  failure waveform: written by the process running chip 0\n";
    }
    reproduce_wave = again.waveform;
  }
  if (!r.passed)
    std::cout << "  reproduce" << (served.empty() ? "" : " in one process") << ": "
              << in_process_command(original, reproduce_wave) << "\n";

  if (!wave_damage.empty())
    errors.push_back("the waveform " + wave + " came out incomplete: " + wave_damage +
                     "; is its file system full? The run's results above stand; the partial file is removed");
  if (!r.trace_error.empty()) errors.push_back(r.trace_error + "; the run's results above stand");
  // A failed run keeps its exit 1 when an output fails too, as main() keeps it for a standard
  // output that failed: the failure is the news, and exit 2 would file it as bad input. A run
  // a signal cut short keeps its 130 alike.
  // A signal that cut the timeline short (written after the run) stops the command too.
  const bool stopped = r.interrupted || (!r.trace_error.empty() && StopSignals::flag()->load());
  const int status = stopped ? kExitStopped : r.passed ? kExitPass : kExitFail;
  if (!errors.empty() && status != kExitPass) {
    for (const std::string& e : errors) std::cerr << argv[0] << ": error: " << e << "\n";
    return status;
  }
  if (!errors.empty()) {
    // The last one is the exception main() reports (exit 2); any before it are said the same way.
    for (std::size_t i = 0; i + 1 < errors.size(); ++i) std::cerr << argv[0] << ": error: " << errors[i] << "\n";
    throw std::runtime_error(errors.back());
  }
  return status;
}

}  // namespace mxc::app
