// `mxcosim hbm`: runs the HBM model alone, from a generated request stream or
// a DRAMsim3 / Ramulator trace, in closed loop with N requests outstanding,
// and prints bandwidth, latency and what limited them.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cxxopts.hpp>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <nlohmann/json.hpp>

#include "cli_args.h"
#include "command.h"
#include "cosim/json_text.h"
#include "models/core/output_file.h"
#include "models/core/progress.h"
#include "models/hbm/closed_loop.h"
#include "models/hbm/config_loader.h"
#include "models/hbm/hbm_model.h"
#include "models/hbm/hbm_summary.h"
#include "models/hbm/pattern_source.h"
#include "models/hbm/trace_source.h"
#include "progress_line.h"
#include "stop_signals.h"

namespace mxc::app {

namespace {

nlohmann::json to_json(const hbm::HbmSummary& s, const std::string& config, const std::string& workload) {
  nlohmann::json j;
  j["schema_version"] = 2;
  j["config"] = config;
  j["workload"] = workload;
  j["device"] = s.device;
  j["stacks"] = s.stacks;
  j["pseudo_channels"] = s.pseudo_channels;
  j["peak_bandwidth_gbps"] = s.peak_bandwidth_gbps;
  j["read_bandwidth_gbps"] = s.read_bandwidth_gbps;
  j["write_bandwidth_gbps"] = s.write_bandwidth_gbps;
  j["activate_ceiling_gbps"] = s.activate_ceiling_gbps;
  j["avg_latency_ns"] = s.avg_latency_ns;
  j["p50_latency_ns"] = s.p50_latency_ns;
  j["p99_latency_ns"] = s.p99_latency_ns;
  j["max_latency_ns"] = s.max_latency_ns;
  j["avg_requests_in_flight"] = s.avg_in_flight;
  j["outstanding"] = s.outstanding;
  j["queue_full_fraction"] = s.queue_full_fraction;
  j["source_idle_fraction"] = s.source_idle_fraction;
  j["requests"] = s.requests;
  j["reads"] = s.reads;
  j["writes"] = s.writes;
  j["capacity_bytes"] = s.capacity_bytes;
  j["requests_beyond_capacity"] = s.requests_beyond_capacity;
  j["sim_time_ns"] = s.sim_time_ns;
  j["wall_seconds"] = s.wall_seconds;
  j["row_hits"] = s.row_hits;
  j["row_misses"] = s.row_misses;
  j["row_conflicts"] = s.row_conflicts;
  j["activates"] = s.activates;
  j["refreshes"] = s.refreshes;
  j["refreshes_postponed"] = s.refreshes_postponed;
  j["refreshes_owed_at_end"] = s.refreshes_owed;
  j["refresh_fraction"] = s.refresh_fraction;
  j["avg_read_queue"] = s.avg_read_queue;
  j["avg_write_queue"] = s.avg_write_queue;
  j["binding_constraint"] = s.binding_constraint;
  j["top_wait"] = s.top_wait;
  j["cpu_seconds"] = s.cpu_seconds;
  j["controller_steps"] = s.controller_steps;
  nlohmann::json stalls = nlohmann::json::array();
  for (const auto& [name, share] : s.stall_share) stalls.push_back({{"constraint", name}, {"share", share}});
  j["stall_share"] = stalls;
  nlohmann::json idle = nlohmann::json::array();
  for (const auto& [cause, share] : s.bus_idle_share) idle.push_back({{"cause", cause}, {"share", share}});
  j["bus_idle_share"] = idle;
  j["bus_busy_fraction"] = s.bus_busy_fraction;
  j["channel_read_bandwidth_gbps"] = s.channel_read_gbps;
  j["channel_write_bandwidth_gbps"] = s.channel_write_gbps;
  j["pseudo_channel_read_bandwidth_gbps"] = s.pc_read_gbps;
  j["pseudo_channel_write_bandwidth_gbps"] = s.pc_write_gbps;
  j["bank_activates"] = s.bank_activates;
  return j;
}

/// "page-policy" -> "page_policy": an option's name as a JSON key.
std::string underscored(std::string option) {
  std::replace(option.begin(), option.end(), '-', '_');
  return option;
}

}  // namespace

int hbm_main(int argc, char** argv) {
  cxxopts::Options opts(argv[0], "Run the HBM transaction-level model on a generated stream or a trace.");
  // clang-format off
  opts.add_options()
    ("config", "memory config YAML (e.g. configs/hbm/hbm2.yaml)", cxxopts::value<std::string>())
    ("pattern", "generated stream: seq, random, stride, chase (one load in flight: the next address is drawn only "
                "when the previous load returns, as when following pointers), "
                "mix (random with --write-ratio, default 0.5)", cxxopts::value<std::string>())
    ("trace", "trace file, plain or gzip: DRAMsim3 '0xADDR READ|WRITE cycle' or Ramulator 'LD|ST 0xADDR'",
     cxxopts::value<std::string>())
    ("trace-format", "auto, dramsim3 or ramulator", cxxopts::value<std::string>()->default_value("auto"))
    ("requests", "requests to generate (pattern; default 100000) or at most to read (trace; default the "
                 "whole file)",
     cxxopts::value<std::uint64_t>())
    ("outstanding", "requests in flight at most (closed loop)", cxxopts::value<std::uint32_t>()->default_value("64"))
    ("size", "bytes per request, any size (split into the device's bursts, 32 B on the presets); default 256 for "
             "--pattern (a DMA "
             "burst), 64 for --trace (the DRAMsim3 / Ramulator transaction)",
     cxxopts::value<std::uint32_t>())
    ("stride", "address step of the stride pattern, bytes", cxxopts::value<std::uint64_t>()->default_value("4096"))
    ("footprint", "address range of generated requests, bytes",
     cxxopts::value<std::uint64_t>()->default_value("1073741824"))
    ("write-ratio", "fraction of writes in generated streams (mix: default 0.5, others 0)",
     cxxopts::value<double>())
    ("seed", "seed of the generator (same seed + config = same results; seq and stride without writes draw "
             "nothing at random and ignore it)",
     cxxopts::value<std::uint64_t>()->default_value("1"))
    ("refresh", "override controller.refresh: all_bank, per_bank or none", cxxopts::value<std::string>())
    ("refresh-postpone", "override controller.refresh_postpone: all-bank refreshes a busy pseudo-channel may owe, "
     "0 (each at its due cycle, as DRAMsim3 and Ramulator 2) to 7; per-bank refresh is never postponed and none "
     "refreshes never, and both take only 0", cxxopts::value<std::uint32_t>())
    ("page-policy", "override controller.page_policy: open or closed", cxxopts::value<std::string>())
    ("stacks", "override memory.stacks", cxxopts::value<std::uint32_t>())
    ("check-timing", "verify every command with the independent JEDEC timing checker (slower)")
    ("progress", "print a progress line on standard error (default: when it is a terminal)")
    ("json", "write the results as JSON to this file", cxxopts::value<std::string>())
    ("h,help", "show this help");
  // clang-format on
  cxxopts::ParseResult args;
  if (const auto done = parse_arguments(
          opts, argc, argv, args,
          {.output_files = {"json"},
           .input_files = {"config", "trace"},
           .help_footer = "examples:\n  mxcosim hbm --config configs/hbm/hbm2.yaml --pattern seq --requests 1000000 "
                          "--outstanding 64 --json out.json\n"
                          "  mxcosim hbm --config configs/hbm/hbm2.yaml --trace run.trace.gz --outstanding 32\n"}))
    return *done;
  if (!args.count("config")) throw std::invalid_argument("--config is required (see --help)");
  if (args.count("pattern") == args.count("trace"))
    throw std::invalid_argument("give exactly one of --pattern and --trace");
  // Options the chosen source does not read are refused: ignored, they
  // would look applied.
  if (args.count("trace")) {
    for (const char* opt : {"stride", "footprint", "seed", "write-ratio"})
      if (args.count(opt))
        throw std::invalid_argument(std::string("--") + opt + " is an option of --pattern, not --trace");
  } else {
    const std::string pattern = args["pattern"].as<std::string>();
    if (args.count("trace-format"))
      throw std::invalid_argument("--trace-format is an option of --trace, not --pattern");
    if (args.count("stride") && pattern != "stride")
      throw std::invalid_argument("--stride is an option of --pattern stride, not " + pattern);
    if (args.count("write-ratio") && pattern == "chase")
      throw std::invalid_argument("--write-ratio: --pattern chase makes loads only (a pointer chase)");
  }

  const std::string config_path = args["config"].as<std::string>();
  // The loader checks the refresh timings for the mode the run uses.
  std::optional<hbm::RefreshMode> refresh;
  if (args.count("refresh")) {
    const auto r = args["refresh"].as<std::string>();
    refresh = hbm::refresh_mode(r);
    if (!refresh) throw std::invalid_argument("--refresh: expected all_bank, per_bank or none, got '" + r + "'");
  }
  hbm::MemoryConfig cfg = hbm::load_memory_config(config_path, refresh);
  if (args.count("refresh-postpone")) {
    cfg.controller.refresh_postpone = args["refresh-postpone"].as<std::uint32_t>();
    if (cfg.controller.refresh_postpone > hbm::kMaxRefreshPostpone)
      throw std::invalid_argument("--refresh-postpone: expected 0 to " + std::to_string(hbm::kMaxRefreshPostpone) +
                                  ", got " + std::to_string(cfg.controller.refresh_postpone));
    // Per-bank refresh is never postponed (refresh_policy.cpp), and none is
    // no refresh: a count given for them would look applied. A config's own
    // count stays allowed.
    const hbm::RefreshMode mode = cfg.controller.refresh;
    if (cfg.controller.refresh_postpone > 0 && mode != hbm::RefreshMode::kAllBank)
      throw std::invalid_argument(
          "--refresh-postpone " + std::to_string(cfg.controller.refresh_postpone) + ": refresh is " +
          (mode == hbm::RefreshMode::kPerBank ? "per-bank (" : "none (") +
          (refresh ? "--refresh " + std::string(to_string(mode))
                   : "controller.refresh: " + std::string(to_string(mode)) + " in " + config_path) +
          (mode == hbm::RefreshMode::kPerBank ? "), which is never postponed" : "), which issues no refresh") +
          "; refresh_postpone applies to all-bank refresh only");
  }
  if (args.count("page-policy")) {
    const auto p = args["page-policy"].as<std::string>();
    if (p == "open") cfg.controller.page_policy = hbm::PagePolicy::kOpen;
    else if (p == "closed") cfg.controller.page_policy = hbm::PagePolicy::kClosed;
    else throw std::invalid_argument("--page-policy: expected open or closed, got '" + p + "'");
  }
  if (args.count("stacks")) {
    cfg.stacks = args["stacks"].as<std::uint32_t>();
    if (cfg.stacks == 0 || cfg.stacks > hbm::kMaxStacks)
      throw std::invalid_argument("--stacks: expected 1 to " + std::to_string(hbm::kMaxStacks) + ", got " +
                                  std::to_string(cfg.stacks));
    try {  // what the stack count breaks is the option's doing, not the file's
      hbm::validate(cfg);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--stacks " + std::to_string(cfg.stacks) + ": " + e.what());
    }
  }
  if (args.count("check-timing")) cfg.check_timing = true;
  hbm::HbmModel model("hbm", cfg);
  // Nothing here reads the data: without the backing store, a trace of
  // writes scattered over the device costs no memory (a 4 KiB page per page
  // written otherwise) and the results are the same.
  model.set_timing_only(true);

  // A trace runs to its end unless told otherwise; a pattern needs a length.
  const bool limited = args.count("requests") != 0;
  const std::uint64_t requests = limited ? args["requests"].as<std::uint64_t>()
                                 : args.count("pattern") ? 100000 : std::numeric_limits<std::uint64_t>::max();
  if (limited && requests == 0) throw std::invalid_argument("--requests: must be > 0");
  const std::uint32_t outstanding = args["outstanding"].as<std::uint32_t>();
  if (outstanding == 0) throw std::invalid_argument("--outstanding: must be > 0");
  const std::uint32_t size = args.count("size") ? args["size"].as<std::uint32_t>() : args.count("pattern") ? 256 : 64;
  if (size == 0) throw std::invalid_argument("--size: must be > 0");
  // A size no queue could take fails here, before a source makes requests
  // (and write data) of that size.
  for (const bool write : {false, true}) {
    MemRequest probe;
    probe.bytes = size;
    probe.write = write;
    try {
      model.check_request(probe);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--size " + std::to_string(size) + ": " + e.what());
    }
  }
  std::unique_ptr<hbm::RequestSource> source;
  const hbm::TraceSource* trace = nullptr;  // source, when it is a trace
  std::string workload;
  // What made the requests, as given or defaulted, so the JSON says how to run them again.
  nlohmann::json source_json;
  if (args.count("pattern")) {
    hbm::PatternOptions p;
    p.pattern = args["pattern"].as<std::string>();
    p.requests = requests;
    p.bytes = size;
    p.stride = args["stride"].as<std::uint64_t>();
    p.footprint = args["footprint"].as<std::uint64_t>();
    p.seed = args["seed"].as<std::uint64_t>();
    p.write_ratio = args.count("write-ratio") ? args["write-ratio"].as<double>() : (p.pattern == "mix" ? 0.5 : 0.0);
    source = std::make_unique<hbm::PatternSource>(p);
    workload = "pattern " + p.pattern;
    source_json = {{"pattern", p.pattern}, {"requests", p.requests}, {"size", p.bytes},
                   {"footprint", p.footprint}, {"write_ratio", p.write_ratio}};
    if (p.pattern == "stride") source_json["stride"] = p.stride;
    if (hbm::draws_random(p)) source_json["seed"] = p.seed;
  } else {
    const auto path = args["trace"].as<std::string>();
    auto t = std::make_unique<hbm::TraceSource>(path, hbm::parse_trace_format(args["trace-format"].as<std::string>()),
                                                cfg.device.t.tCK_ps, size, requests);
    // A bad line deep in a long trace ends it there: the requests before it keep their results.
    t->stop_at_error(true);
    trace = t.get();
    source = std::move(t);
    workload = "trace " + path;
    // A trace without --requests runs to its end: no limit, null.
    source_json = {{"trace", path}, {"trace_format", args["trace-format"].as<std::string>()}, {"size", size},
                   {"requests", limited ? nlohmann::json(requests) : nlohmann::json()}};
  }
  ProgressReport progress;
  ProgressLine progress_line;
  if (args.count("progress") || isatty(STDERR_FILENO)) {
    // A pattern makes exactly its requests; a trace at most --requests, if given.
    const bool exact = args.count("pattern") != 0;
    const auto start = std::chrono::steady_clock::now();
    progress.report = [&progress_line, exact, limited, requests, start](Time now, std::uint64_t done) {
      const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::ostringstream line;
      line << "  ... " << done;
      if (exact) line << "/" << requests << " requests";
      else if (limited) line << " requests of at most " << requests;
      else line << " requests";
      line << ", " << std::fixed << std::setprecision(1) << static_cast<double>(now) / 1e6 << " us simulated, "
           << std::setprecision(2) << static_cast<double>(done) / host / 1e6 << " M requests/s";
      progress_line.show(line.str());
    };
  }
  // Ctrl-C, SIGTERM or SIGHUP ends the offers; the requests in flight complete and are reported.
  // Kept until the results are written, so that a signal cannot cut them off; a second one kills.
  const StopSignals signals(true);
  progress.stop = StopSignals::flag();
  const hbm::LoopResult run =
      hbm::run_closed_loop(model, *source, outstanding, progress);
  progress_line.clear();
  const hbm::HbmSummary s = hbm::summarize(model, run);
  hbm::print_summary(std::cout, s);
  if (s.requests_beyond_capacity)
    std::cerr << "mxcosim hbm: warning: " << s.requests_beyond_capacity << " of " << s.requests
              << " requests reach past the memory's " << s.capacity_bytes
              << " bytes and alias lower addresses ("
              << (trace ? "a trace for a larger memory? see --stacks" : "--footprint is larger than the memory")
              << ")\n";
  // A run shorter than the postponement window ends before its busy
  // controllers pay their refreshes: its bandwidth is that of a memory
  // refreshing less than the device must.
  // A trace that ran to its end wants a longer trace; one --requests cut wants more of them.
  const bool cut = !trace || (limited && s.requests >= requests);
  if (s.refreshes_owed * 20 > s.refreshes + s.refreshes_owed)
    std::cerr << "mxcosim hbm: warning: " << s.refreshes_owed << " of the " << s.refreshes + s.refreshes_owed
              << " refreshes due were postponed and not yet issued when the run ended, so it under-counts refresh ("
              << (cut ? "more --requests" : "a longer trace") << ", or --refresh-postpone 0 to refresh at each due "
              << "cycle)\n";
  if (trace && trace->backwards_lines()) {
    const bool one = trace->backwards_lines() == 1;
    std::cerr << "mxcosim hbm: warning: " << args["trace"].as<std::string>() << ": "
              << (one ? std::string("line ") + std::to_string(trace->first_backwards_line()) + " has"
                      : std::to_string(trace->backwards_lines()) + " lines (the first at line " +
                            std::to_string(trace->first_backwards_line()) + ") have")
              << " a cycle before an earlier line's; " << (one ? "it was" : "each was")
              << " issued after the lines above it\n";
  }
  // What ended the run before its source did, if anything: a bad trace line or a signal. The
  // results are those of the requests before it, and the JSON's `error` says so.
  std::string early_end;
  if (trace && !trace->error().empty()) early_end = trace->error();
  else if (run.stopped)
    early_end = "stopped by " + StopSignals::named() + " after " + std::to_string(s.requests) + " requests";
  if (args.count("json")) {
    nlohmann::json j = to_json(s, config_path, workload);
    j["source"] = source_json;
    // The config file's settings the command line replaced, as given.
    nlohmann::json overrides = nlohmann::json::object();
    for (const char* opt : {"refresh", "page-policy"})
      if (args.count(opt)) overrides[underscored(opt)] = args[opt].as<std::string>();
    if (args.count("refresh-postpone")) overrides["refresh_postpone"] = args["refresh-postpone"].as<std::uint32_t>();
    if (args.count("stacks")) overrides["stacks"] = args["stacks"].as<std::uint32_t>();
    if (args.count("check-timing")) overrides["check_timing"] = true;
    j["overrides"] = overrides;
    if (!early_end.empty()) j["error"] = early_end;
    write_output_file(args["json"].as<std::string>(), json_text(j, 2) + "\n");
  }
  if (early_end.empty()) return kExitPass;
  const std::string also = args.count("json") ? ", also in " + args["json"].as<std::string>() : "";
  if (run.stopped) {
    std::cerr << argv[0] << ": " << early_end << " (the results above are those of the " << s.requests
              << " requests completed before the stop" << also << ")\n";
    return kExitStopped;
  }
  std::cerr << argv[0] << ": error: " << early_end << " (the results above are those of the " << s.requests
            << " requests before it" << also << ")\n";
  return kExitUsage;
}

}  // namespace mxc::app
