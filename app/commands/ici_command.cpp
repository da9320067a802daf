// `mxcosim ici`: the ICI fabric alone. Synthetic traffic with a latency
// versus offered load sweep, or collectives over a sweep of message sizes,
// on the packet-level torus or the analytical fabric.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cxxopts.hpp>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "cli_args.h"
#include "command.h"
#include "cosim/json_text.h"
#include "models/core/output_file.h"
#include "models/ici/collective.h"
#include "models/ici/collective_runner.h"
#include "models/ici/fabric_factory.h"
#include "models/ici/ici_config_loader.h"
#include "models/ici/schedule_bound.h"
#include "models/ici/traffic_run.h"
#include "progress_line.h"
#include "stop_signals.h"

namespace mxc::app {

namespace {

using namespace mxc::ici;

/// "4096", "64KiB", "1GiB", "1.5MB": bytes (KiB = 1024, KB = 1000).
std::uint64_t parse_size(const std::string& s) {
  std::size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(s, &pos);
  } catch (const std::exception&) {
    throw std::invalid_argument("--bytes: cannot read a size from '" + s + "'");
  }
  const std::string unit = s.substr(pos);
  double mul = 1;
  if (unit.empty() || unit == "B") mul = 1;
  else if (unit == "KiB") mul = 1024.0;
  else if (unit == "MiB") mul = 1024.0 * 1024;
  else if (unit == "GiB") mul = 1024.0 * 1024 * 1024;
  else if (unit == "KB") mul = 1e3;
  else if (unit == "MB") mul = 1e6;
  else if (unit == "GB") mul = 1e9;
  else throw std::invalid_argument("--bytes: unknown unit '" + unit + "' in '" + s + "' (B, KiB, MiB, GiB, KB, MB, GB)");
  const double b = v * mul;
  if (!(b >= 1) || b > 64.0 * 1024 * 1024 * 1024 || b != std::floor(b))
    throw std::invalid_argument("--bytes: '" + s + "' must be a whole number of bytes in [1, 64 GiB]");
  return static_cast<std::uint64_t>(b);
}

constexpr std::size_t kMaxSizes = 1000;  // collective runs of one command

/// "1KiB,1MiB" (a list) or "1KiB:1GiB" (powers of `factor` >= 2 from lo to hi).
/// `factor_given`: --bytes-factor was on the command line, which steps a range and nothing else.
std::vector<std::uint64_t> parse_sizes(const std::string& s, std::uint64_t factor, bool factor_given) {
  std::vector<std::uint64_t> out;
  auto add = [&](std::uint64_t b) {
    if (out.size() == kMaxSizes)
      throw std::invalid_argument("--bytes: more than " + std::to_string(kMaxSizes) + " sizes");
    out.push_back(b);
  };
  const auto colon = s.find(':');
  if (colon != std::string::npos) {
    const std::uint64_t lo = parse_size(s.substr(0, colon)), hi = parse_size(s.substr(colon + 1));
    if (lo > hi) throw std::invalid_argument("--bytes: '" + s + "' has lo > hi");
    // b * factor <= hi exactly when b <= hi / factor: the product is formed
    // only when it stays within hi, so it cannot wrap around.
    for (std::uint64_t b = lo;; b *= factor) {
      add(b);
      if (b > hi / factor) break;
    }
    return out;
  }
  if (factor_given)
    throw std::invalid_argument("--bytes-factor steps a range of --bytes (LO:HI), and --bytes '" + s + "' is no range");
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) throw std::invalid_argument("--bytes: an empty size in '" + s + "'");
    add(parse_size(item));
  }
  // getline yields no item after a trailing comma.
  if (out.empty() || s.back() == ',') throw std::invalid_argument("--bytes: an empty size in '" + s + "'");
  return out;
}

constexpr std::size_t kMaxLoads = 10'000;  // traffic points of one command
constexpr double kMaxTrafficNs = 1e9;      // --warmup-ns, --measure-ns, --drain-ns
// Runs of about a minute and more are announced with how long they may take.
// Measured CPU rates: synthetic traffic 1 to 6 million packet-hops a second
// (4 to 6 million below saturation on 4x4, 4x4x4 and 16x16, about 2 on
// 64x64, less past saturation); collective wire packets 10-20 million a
// second on 4x4x4.
constexpr double kWarnTrafficPacketHops = 3e8, kWarnWirePackets = 1e9;
constexpr double kTrafficPacketHopsPerSecond[2] = {1e6, 6e6}, kWirePacketsPerSecond[2] = {10e6, 20e6};

/// "0.05:0.95:0.1" -> 0.05, 0.15, ..., 0.95.
std::vector<double> parse_sweep(const std::string& s) {
  std::vector<double> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ':')) {
    try {
      std::size_t pos = 0;
      v.push_back(std::stod(item, &pos));
      if (pos != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw std::invalid_argument("--sweep: cannot read a number from '" + item + "' in '" + s + "'");
    }
  }
  if (v.size() != 3 || !(v[0] > 0 && v[0] <= v[1] && v[1] <= 1.0) || !(v[2] > 0 && std::isfinite(v[2])))
    throw std::invalid_argument("--sweep: expected LO:HI:STEP with 0 < LO <= HI <= 1 and a finite STEP > 0, got '" +
                                s + "'");
  // The points LO + i * STEP up to HI, counted before any is made (a
  // tolerance of 1e-9 steps absorbs the rounding of (HI - LO) / STEP).
  const double steps = std::floor((v[1] - v[0]) / v[2] + 1e-9);
  if (!(steps < static_cast<double>(kMaxLoads)))
    throw std::invalid_argument("--sweep: '" + s + "' gives more than " + std::to_string(kMaxLoads) +
                                " loads; take a larger STEP");
  std::vector<double> out;
  for (std::size_t i = 0; i <= static_cast<std::size_t>(steps); ++i)
    out.push_back(std::round((v[0] + static_cast<double>(i) * v[2]) * 1e9) / 1e9);
  return out;
}

nlohmann::json config_json(const IciConfig& c) {
  // One wrap for all dimensions is written out per dimension, as dims is.
  const std::vector<bool> wrap = c.wrap.size() == 1 ? std::vector<bool>(c.dims.size(), c.wrap[0]) : c.wrap;
  return {{"name", c.name}, {"model", c.model}, {"dims", c.dims}, {"wrap", wrap},
          {"link_gbps", c.link_gbps}, {"link_latency_ns", c.link_latency_ps / 1000.0},
          {"router_latency_ns", c.router_latency_ps / 1000.0}, {"max_payload_bytes", c.max_payload_bytes},
          {"header_bytes", c.header_bytes}, {"flit_bytes", c.flit_bytes}, {"vcs_per_class", c.vcs_per_class},
          {"buffer_bytes_per_vc", c.buffer_bytes_per_vc}, {"injection_queue", c.injection_queue},
          {"datelines", c.datelines}};
}

std::string fmt(double v, int prec) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(prec) << v;
  return s.str();
}

/// A duration for a person as {number, unit}: seconds, minutes or hours; whole from 10, else two figures.
std::pair<std::string, std::string> duration_text(double seconds) {
  const auto figures = [](double v) {
    if (v >= 10) return std::to_string(std::llround(v));
    std::ostringstream s;
    s << std::setprecision(2) << v;
    return s.str();
  };
  if (seconds < 120) return {figures(std::max(seconds, 1.0)), "s"};
  if (seconds < 2 * 3600) return {figures(seconds / 60), "minutes"};
  return {figures(seconds / 3600), "hours"};
}

/// "about 2 to 20 minutes at 0.2 to 2 million a second" for `units` at the rates given.
std::string time_estimate(double units, const double (&per_second)[2]) {
  const auto [lo, lo_unit] = duration_text(units / per_second[1]);
  const auto [hi, hi_unit] = duration_text(units / per_second[0]);
  return "about " + lo + (lo_unit == hi_unit ? "" : " " + lo_unit) + " to " + hi + " " + hi_unit + " at " +
         shortest(per_second[0] / 1e6) + " to " + shortest(per_second[1] / 1e6) + " million a second";
}

void print_rows(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows, bool csv) {
  if (csv) {
    for (std::size_t i = 0; i < head.size(); ++i) std::cout << (i ? "," : "") << head[i];
    std::cout << "\n";
    for (const auto& r : rows) {
      for (std::size_t i = 0; i < r.size(); ++i) std::cout << (i ? "," : "") << r[i];
      std::cout << "\n";
    }
    return;
  }
  std::vector<std::size_t> w(head.size());
  for (std::size_t i = 0; i < head.size(); ++i) {
    w[i] = head[i].size();
    for (const auto& r : rows) w[i] = std::max(w[i], r[i].size());
  }
  auto line = [&](const std::vector<std::string>& r) {
    for (std::size_t i = 0; i < r.size(); ++i) std::cout << (i ? "  " : "") << std::setw(static_cast<int>(w[i])) << r[i];
    std::cout << "\n";
  };
  line(head);
  for (const auto& r : rows) line(r);
}

/// Where a signal stopped a sweep: "stopped by a signal (SIGINT) during load 0.5 (point 3 of 10); the 2
/// points before it are complete". `what` names the point or size running, `unit` what the sweep is made of.
std::string stopped_text(const std::string& what, std::size_t index, std::size_t count, const std::string& unit) {
  const std::string done = index == 0   ? "no " + unit + " is complete"
                           : index == 1 ? "the " + unit + " before it is complete"
                                        : "the " + std::to_string(index) + " " + unit + "s before it are complete";
  return "stopped by " + StopSignals::named() + " during " + what + " (" + unit + " " + std::to_string(index + 1) +
         " of " + std::to_string(count) + "); " + done;
}

/// A traffic point in the JSON. With no measured packet delivered there is no latency: null.
nlohmann::json point_json(const TrafficPoint& p) {
  const bool has_latency = p.delivered > 0;
  return {{"offered_load", p.offered_load}, {"offered_load_per_sender", p.offered_per_sender},
          {"accepted_load", p.accepted_load},
          {"avg_latency_ns", has_latency ? nlohmann::json(p.avg_latency_ns) : nlohmann::json()},
          {"max_latency_ns", has_latency ? nlohmann::json(p.max_latency_ns) : nlohmann::json()},
          {"measured_packets", p.measured}, {"delivered_packets", p.delivered}, {"saturated", p.saturated},
          {"deadlocked", p.deadlocked}, {"truncated", p.truncated}, {"refused_packets", p.refused}};
}

/// A traffic point in the table and the CSV; "n/a" for a latency as null in the JSON.
std::vector<std::string> point_row(const TrafficPoint& p) {
  const bool has_latency = p.delivered > 0;
  return {fmt(p.offered_load, 3), fmt(p.accepted_load, 3), has_latency ? fmt(p.avg_latency_ns, 1) : "n/a",
          has_latency ? fmt(p.max_latency_ns, 1) : "n/a", std::to_string(p.measured),
          p.deadlocked ? "DEADLOCK" : p.saturated ? "yes" : "no", p.truncated ? "yes" : "no"};
}

}  // namespace

int ici_main(int argc, char** argv) {
  cxxopts::Options opts(argv[0],
                        "Simulate the ICI fabric alone: synthetic traffic (latency versus offered load) or\n"
                        "collectives (time versus message size, next to the alpha-beta bound).\n"
                        "Examples:\n"
                        "  mxcosim ici --config configs/ici/torus4x4.yaml --traffic uniform --sweep 0.05:0.95:0.1\n"
                        "  mxcosim ici --config configs/ici/torus4x4x4.yaml --collective allreduce "
                        "--algorithm all-axes --bytes 1GiB --json out.json");
  // clang-format off
  opts.add_options("fabric")
    ("config", "ICI config YAML (see configs/ici/)", cxxopts::value<std::string>())
    ("model", "override the config's model: torus (packet level) or analytic (alpha-beta)", cxxopts::value<std::string>());
  opts.add_options("traffic")
    ("traffic", "synthetic pattern: uniform, transpose, neighbour, hotspot", cxxopts::value<std::string>())
    ("sweep", "offered loads LO:HI:STEP, fractions of a chip's total outgoing link bandwidth", cxxopts::value<std::string>())
    ("load", "a single offered load (instead of --sweep)", cxxopts::value<double>())
    ("packet-bytes", "payload bytes per synthetic packet", cxxopts::value<std::uint32_t>()->default_value("1024"))
    ("hotspot-chip", "destination chip of hotspot traffic", cxxopts::value<std::uint32_t>()->default_value("0"))
    ("hotspot-fraction", "share of packets sent to the hotspot (rest uniform)", cxxopts::value<double>()->default_value("0.2"))
    ("warmup-ns", "warm-up time before measuring", cxxopts::value<double>()->default_value("20000"))
    ("measure-ns", "measurement window", cxxopts::value<double>()->default_value("50000"))
    ("drain-ns", "longest wait for measured packets after the window", cxxopts::value<double>()->default_value("200000"))
    ("seed", "seed of the traffic generators", cxxopts::value<std::uint64_t>()->default_value("1"));
  opts.add_options("collective")
    ("collective", "allreduce, reducescatter, allgather or alltoall", cxxopts::value<std::string>())
    ("algorithm", "ring, bidir-ring, dim (dimension by dimension) or all-axes", cxxopts::value<std::string>()->default_value("dim"))
    ("bytes", "data per chip: a list (64KiB,1MiB) or a range LO:HI stepped by --bytes-factor", cxxopts::value<std::string>()->default_value("1MiB"))
    ("bytes-factor", "multiplier between sizes of a LO:HI range", cxxopts::value<std::uint64_t>()->default_value("4"));
  opts.add_options("output")
    ("csv", "print CSV instead of a table")
    ("json", "write the results as JSON to FILE", cxxopts::value<std::string>())
    ("progress", "print a progress line on standard error (default: when it is a terminal)")
    ("h,help", "show this help");
  // clang-format on
  cxxopts::ParseResult args;
  if (const auto done =
          parse_arguments(opts, argc, argv, args, {.output_files = {"json"}, .input_files = {"config"}}))
    return *done;
  if (!args.count("config")) {
    std::cerr << argv[0] << ": --config FILE is required (e.g. configs/ici/torus4x4.yaml)\n";
    return kExitUsage;
  }
  if (args.count("traffic") == args.count("collective")) {
    std::cerr << argv[0] << ": error: give exactly one of --traffic or --collective\n";
    return kExitUsage;
  }
  // The other mode's options would be ignored, and look applied.
  const bool traffic = args.count("traffic") > 0;
  for (const char* opt : traffic ? std::vector<const char*>{"algorithm", "bytes", "bytes-factor"}
                                 : std::vector<const char*>{"sweep", "load", "packet-bytes", "hotspot-chip",
                                                            "hotspot-fraction", "warmup-ns", "measure-ns", "drain-ns",
                                                            "seed"})
    if (args.count(opt)) {
      std::cerr << argv[0] << ": --" << opt << " is an option of " << (traffic ? "--collective" : "--traffic")
                << "\n";
      return kExitUsage;
    }
  if (traffic && args["traffic"].as<std::string>() != "hotspot")
    for (const char* opt : {"hotspot-chip", "hotspot-fraction"})
      if (args.count(opt)) {
        std::cerr << argv[0] << ": --" << opt << " is an option of --traffic hotspot\n";
        return kExitUsage;
      }
  IciConfig cfg = load_ici_config(args["config"].as<std::string>());
  if (args.count("model")) {
    cfg.model = args["model"].as<std::string>();
    if (!IciConfig::known_model(cfg.model))
      throw std::invalid_argument("--model: must be torus or analytic, got '" + cfg.model + "'");
  }
  const Topology topo(cfg.dims, cfg.wrap);
  // Traffic and collectives move data between chips: a fabric of one has none to move.
  if (topo.num_chips() < 2)
    throw std::invalid_argument(args["config"].as<std::string>() + ": field 'ici.topology.dims': " +
                                topo.describe() + " has one chip; --" +
                                (args.count("traffic") ? "traffic" : "collective") + " needs at least 2");
  const bool csv = args.count("csv") > 0;
  nlohmann::json out;
  out["schema_version"] = 1;
  out["config"] = config_json(cfg);
  out["config_file"] = args["config"].as<std::string>();
  int code = kExitPass;  // kExitFail when the fabric deadlocked
  const auto wall0 = std::chrono::steady_clock::now();
  // Each point or size sets its own report (which load or size it is).
  const bool show_progress = args.count("progress") || isatty(STDERR_FILENO);
  ProgressReport progress;
  ProgressLine progress_line;  // cleared at the end, or when an error ends the command
  // Ctrl-C, SIGTERM or SIGHUP abandons the point or size running (its measurement is not complete):
  // those before it are printed and written, with `error` saying where it stopped. A second one kills.
  const StopSignals signals(true);
  progress.stop = StopSignals::flag();
  std::string stopped;  // where a signal stopped the sweep
  std::size_t rows_done = 0;  // points or sizes complete

  if (args.count("traffic")) {
    const TrafficKind kind = parse_traffic(args["traffic"].as<std::string>());
    std::vector<double> loads;
    if (args.count("sweep") && args.count("load")) throw std::invalid_argument("give --sweep or --load, not both");
    if (args.count("load")) {
      loads = {args["load"].as<double>()};
      if (!(loads[0] > 0.0 && loads[0] <= 1.0))
        throw std::invalid_argument("--load: must be in (0, 1], got " + shortest(loads[0]));
    } else {
      loads = parse_sweep(args.count("sweep") ? args["sweep"].as<std::string>() : "0.05:0.95:0.1");
    }
    TrafficParams prm;
    prm.packet_bytes = args["packet-bytes"].as<std::uint32_t>();
    if (prm.packet_bytes == 0) throw std::invalid_argument("--packet-bytes: must be at least 1");
    // One simulated second is far past any steady state (the default
    // window is 50 us) and already takes minutes of packets; 1e12 ns took days.
    auto ns = [&](const char* k) {
      const double v = args[k].as<double>();
      if (!(v >= 0) || v > kMaxTrafficNs)
        throw std::invalid_argument(std::string("--") + k + " must be in [0, 1e9] (ns, one simulated second)");
      return static_cast<Time>(std::llround(v * 1000));
    };
    prm.warmup_ps = ns("warmup-ns");
    prm.measure_ps = ns("measure-ns");
    prm.drain_limit_ps = ns("drain-ns");
    // A source has one packet slot per packet time at its full bandwidth; a
    // window shorter than a slot could measure nothing.
    const double slot_ps = packet_slot_ps(topo, static_cast<double>(cfg.link_bytes_per_s()), prm.packet_bytes);
    if (static_cast<double>(prm.measure_ps) < slot_ps)
      throw std::invalid_argument("--measure-ns " + shortest(args["measure-ns"].as<double>()) +
                                  " is shorter than one packet slot: " + fmt(slot_ps / 1000.0, 3) + " ns for " +
                                  std::to_string(prm.packet_bytes) + " B (--packet-bytes) over " +
                                  std::to_string(2 * std::max(1u, topo.active_dims())) + " links of " +
                                  shortest(cfg.link_gbps) + " GB/s (ici.link.bandwidth_gbps in " +
                                  args["config"].as<std::string>() + "), so no packet could be measured");
    const TrafficPattern pattern(kind, topo, args["hotspot-chip"].as<std::uint32_t>(),
                                 args["hotspot-fraction"].as<double>());
    // The packet-hops a sweep simulates, about: said before a run of minutes. Sources go on
    // making packets until the measured ones have drained, at light load about the time of
    // the longest path; each packet costs about one event per hop.
    const Time drain = std::min<Time>(prm.drain_limit_ps, cfg.zero_load_ps(topo.diameter(), prm.packet_bytes));
    const double span_ps = static_cast<double>(prm.warmup_ps + prm.measure_ps + drain);
    const TrafficPattern::HopSample hops = pattern.hop_sample();
    double packet_hops = 0;
    for (double load : loads)
      packet_hops += load * static_cast<double>(pattern.senders()) * span_ps / slot_ps * hops.mean;
    if (packet_hops > kWarnTrafficPacketHops)
      std::cerr << "warning: about " << fmt(packet_hops / 1e6, 0) << " million packet-hops to simulate ("
                << loads.size() << " loads x " << topo.num_chips() << " chips over --warmup-ns + --measure-ns "
                << shortest(static_cast<double>(prm.warmup_ps + prm.measure_ps) / 1000.0) << " and a drain of "
                << fmt(static_cast<double>(drain) / 1e3, 0) << " ns, " << fmt(hops.mean, 1)
                << " hops a packet): " << time_estimate(packet_hops, kTrafficPacketHopsPerSecond) << "\n";
    prm.seed = args["seed"].as<std::uint64_t>();
    std::vector<std::vector<std::string>> rows;
    auto& pts = out["traffic"]["points"] = nlohmann::json::array();
    out["traffic"]["pattern"] = to_string(kind);
    out["traffic"]["packet_bytes"] = prm.packet_bytes;
    out["traffic"]["seed"] = prm.seed;
    out["traffic"]["sending_chips"] = pattern.senders();
    if (pattern.senders() < topo.num_chips())
      std::cerr << "note: " << pattern.senders() << " of " << topo.num_chips() << " chips send ("
                << to_string(kind) << ": the others are their own destination); offered_load is over all chips, "
                << "as accepted_load is: the load each sender offers x " << pattern.senders() << "/"
                << topo.num_chips() << " (offered_load_per_sender in the JSON)\n";
    // Everything the points depend on, so the JSON says how to run them again.
    out["traffic"]["warmup_ns"] = static_cast<double>(prm.warmup_ps) / 1000.0;
    out["traffic"]["measure_ns"] = static_cast<double>(prm.measure_ps) / 1000.0;
    out["traffic"]["drain_ns"] = static_cast<double>(prm.drain_limit_ps) / 1000.0;
    if (kind == TrafficKind::kHotspot) {
      out["traffic"]["hotspot_chip"] = args["hotspot-chip"].as<std::uint32_t>();
      out["traffic"]["hotspot_fraction"] = args["hotspot-fraction"].as<double>();
    }
    // A point is judged in steady state (run_traffic: the backlog's growth
    // over the window's second half): a warm-up and half window shorter
    // than every point's mean latency measure the network filling up.
    double least_latency = 0;
    std::size_t undelivered = 0;  // points that made packets in the window, none of which arrived
    std::size_t undrained = 0;  // saturated points whose measured packets did not all arrive
    std::size_t deadlocks = 0, truncated = 0;
    for (std::size_t i = 0; i < loads.size(); ++i) {
      const double load = prm.load = loads[i];
      auto fabric = make_fabric(cfg);
      if (show_progress)
        progress.report = [&, i, load](Time now, std::uint64_t) {
          const Time window = prm.warmup_ps + prm.measure_ps;
          std::ostringstream line;
          line << "  ... load " << shortest(load) << " (" << i + 1 << " of " << loads.size() << "): ";
          if (now <= window)
            line << fmt(static_cast<double>(now) / 1e6, 1) << " of the window's "
                 << fmt(static_cast<double>(window) / 1e6, 1) << " us simulated";
          else
            line << "draining, " << fmt(static_cast<double>(now - window) / 1e6, 1) << " of at most "
                 << fmt(static_cast<double>(prm.drain_limit_ps) / 1e6, 1) << " us past the window";
          progress_line.show(line.str());
        };
      TrafficPoint p;
      try {
        p = run_traffic(*fabric, topo, pattern, static_cast<double>(cfg.link_bytes_per_s()), prm, progress);
      } catch (const LoopStopped&) {
        stopped = stopped_text("load " + shortest(load), i, loads.size(), "point");
        break;
      }
      pts.push_back(point_json(p));
      rows.push_back(point_row(p));
      deadlocks += p.deadlocked;
      truncated += p.truncated;
      if (p.delivered > 0)
        least_latency = least_latency == 0 ? p.avg_latency_ns : std::min(least_latency, p.avg_latency_ns);
      else if (p.measured > 0 && !p.deadlocked)
        ++undelivered;
      if (p.saturated && p.delivered < p.measured && !p.deadlocked) ++undrained;
    }
    // Nothing measured arrived, and nothing could: the shortest path the pattern sends on takes longer
    // than the window and the drain. (Far past saturation nothing may arrive either, and there the
    // verdict stands.)
    const std::uint32_t fewest = std::max(1u, hops.least);
    const Time shortest_path = cfg.zero_load_ps(fewest, prm.packet_bytes);
    if (undelivered && shortest_path > prm.measure_ps + prm.drain_limit_ps)
      std::cerr << "warning: at " << undelivered << " of " << rows.size() << " loads no packet of the window "
                << "arrived: its shortest path (" << fewest << " hop" << (fewest > 1 ? "s" : "") << ") takes "
                << fmt(static_cast<double>(shortest_path) / 1e6, 1)
                << " us, longer than the window and the drain limit (--measure-ns + --drain-ns = "
                << fmt(static_cast<double>(prm.measure_ps + prm.drain_limit_ps) / 1e6, 1)
                << " us), so nothing was measured and the saturation verdict means nothing; lengthen them\n";
    // Some measured packets left undelivered, where the drain limit is shorter than the longest
    // path the pattern sends on: the last packets of the window could not arrive even with no
    // traffic, so "saturated" may say no more than that (--drain-ns 0 called a load of 0.1 so).
    const Time longest_path = cfg.zero_load_ps(hops.most, prm.packet_bytes);
    if (undrained && longest_path > prm.drain_limit_ps && shortest_path <= prm.measure_ps + prm.drain_limit_ps)
      std::cerr << "warning: at " << undrained << " of " << rows.size() << " loads measured packets were "
                << "left undelivered, and the drain limit (--drain-ns "
                << shortest(static_cast<double>(prm.drain_limit_ps) / 1000.0)
                << ") is shorter than the longest path the traffic takes (" << hops.most << " hop"
                << (hops.most > 1 ? "s" : "") << ", " << fmt(static_cast<double>(longest_path) / 1000.0, 1)
                << " ns with no traffic): packets sent at the window's end could not arrive, so \"saturated\" "
                   "may mean only that; lengthen --drain-ns\n";
    const double settle_ns = static_cast<double>(prm.warmup_ps + prm.measure_ps / 2) / 1000.0;
    if (least_latency > settle_ns)
      std::cerr << "warning: --warmup-ns " << shortest(static_cast<double>(prm.warmup_ps) / 1000.0)
                << " + half of --measure-ns " << shortest(static_cast<double>(prm.measure_ps) / 1000.0)
                << " is shorter than a packet's mean latency (" << fmt(least_latency, 1)
                << " ns at least): the network was still filling, so the accepted load and the saturation "
                   "verdict describe its start-up; lengthen them\n";
    if (!csv)
      std::cout << topo.describe() << ", " << cfg.model << " model, " << to_string(kind) << " traffic, "
                << prm.packet_bytes << " B packets\n";
    rows_done = rows.size();
    print_rows({"offered_load", "accepted_load", "avg_latency_ns", "max_latency_ns", "packets", "saturated",
                "truncated"},
               rows, csv);
    if (truncated)
      std::cerr << "note: at " << truncated << " of " << rows.size() << " loads the packets made and not yet "
                << "delivered reached " << prm.max_backlog << ": the sources made no more until some were "
                << "delivered (refused_packets in the JSON), so less than the offered load was made; the rates are "
                << "over the whole window (truncated: yes)\n";
    if (deadlocks) {
      std::cerr << "mxcosim ici: the fabric deadlocked at " << deadlocks << " of " << rows.size()
                << " loads: packets in its buffers and nothing left to move them"
                << (cfg.datelines ? "" : " (with router.datelines false the rings' buffers can wait on each other "
                                         "in a cycle)")
                << "\n";
      code = kExitFail;
    }
  } else {
    const Collective coll = parse_collective(args["collective"].as<std::string>());
    const Algorithm alg = parse_algorithm(args["algorithm"].as<std::string>());
    const std::uint64_t factor = args["bytes-factor"].as<std::uint64_t>();
    if (factor < 2) throw std::invalid_argument("--bytes-factor must be >= 2");
    const auto sizes = parse_sizes(args["bytes"].as<std::string>(), factor, args.count("bytes-factor") > 0);
    // Wire packets of the packet model, about: all-reduce sends 2N per chip, the others N.
    if (cfg.model == "torus") {
      double wire = 0;
      for (std::uint64_t bytes : sizes)
        wire += (coll == Collective::kAllReduce ? 2.0 : 1.0) * static_cast<double>(bytes) *
                static_cast<double>(topo.num_chips()) / cfg.max_payload_bytes;
      if (wire > kWarnWirePackets)
        std::cerr << "warning: about " << fmt(wire / 1e6, 0) << " million wire packets to simulate (--bytes on "
                  << topo.num_chips() << " chips): " << time_estimate(wire, kWirePacketsPerSecond)
                  << "; --model analytic takes a message as one unit\n";
    }
    std::vector<std::vector<std::string>> rows;
    auto& list = out["collectives"] = nlohmann::json::array();
    std::size_t deadlocks = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const std::uint64_t bytes = sizes[i];
      const Schedule s = build_schedule(coll, alg, topo, bytes);
      BoundTerms bound;
      ProgressReport stop_only;  // the bound takes seconds on a ring of thousands of chips
      stop_only.stop = progress.stop;
      auto fabric = make_fabric(cfg);
      CollectiveRunner runner(*fabric, topo);
      if (show_progress)
        progress.report = [&, i, bytes](Time now, std::uint64_t) {
          // The bound is the time at least: the share of it simulated says roughly how far the run is.
          std::ostringstream line;
          line << "  ... " << bytes << " bytes (" << i + 1 << " of " << sizes.size() << "): "
               << fmt(static_cast<double>(now) / 1e6, 1) << " us simulated, "
               << fmt(100.0 * static_cast<double>(now) / static_cast<double>(std::max<Time>(bound.total_ps, 1)), 0)
               << " % of the bound's " << fmt(static_cast<double>(bound.total_ps) / 1e6, 1) << " us";
          progress_line.show(line.str());
        };
      std::chrono::steady_clock::time_point t0;  // the run's wall time, not the bound's
      // A deadlock is the model's verdict on this config (as for traffic): recorded, exit 1.
      CollectiveRun run;
      std::uint64_t unfinished = 0;
      try {
        bound = schedule_bound(s, topo, cfg, stop_only);
        t0 = std::chrono::steady_clock::now();
        run = runner.run(s, 0, progress);
      } catch (const CollectiveDeadlock& e) {
        unfinished = e.unfinished();
        run = e.so_far();  // the messages injected before it
        std::cerr << "mxcosim ici: " << e.what() << "\n";
      } catch (const LoopStopped&) {
        stopped = stopped_text(std::to_string(bytes) + " bytes", i, sizes.size(), "size");
        break;
      }
      const bool deadlocked = unfinished > 0;
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double time_ns = static_cast<double>(run.time_ps()) / 1000.0;
      const double bound_ns = static_cast<double>(bound.total_ps) / 1000.0;
      list.push_back({{"collective", to_string(coll)}, {"algorithm", to_string(alg)}, {"bytes", bytes},
                      {"time_ns", deadlocked ? nlohmann::json() : nlohmann::json(time_ns)},
                      {"bound_time_ns", bound_ns}, {"latency_term_ns", bound.latency_ps / 1000.0},
                      {"bandwidth_term_ns", bound.bandwidth_ps / 1000.0}, {"messages", run.messages},
                      {"deadlocked", deadlocked}, {"unfinished_streams", unfinished}, {"wall_seconds", wall}});
      if (deadlocked)
        rows.push_back({std::to_string(bytes), "DEADLOCK", fmt(bound_ns, 1), "n/a", "n/a"});
      else
        rows.push_back({std::to_string(bytes), fmt(time_ns, 1), fmt(bound_ns, 1),
                        fmt(time_ns > 0 ? bound_ns / time_ns : 1.0, 3),
                        fmt(time_ns > 0 ? static_cast<double>(bytes) / time_ns : 0.0, 2)});
      // Wall time differs between identical runs: the table shows it, the
      // CSV leaves it out so the same command writes the same file.
      if (!csv) rows.back().push_back(fmt(wall, 2));
      deadlocks += deadlocked;
    }
    if (deadlocks) {
      std::cerr << "mxcosim ici: the fabric deadlocked at " << deadlocks << " of " << rows.size()
                << " sizes: messages in its buffers and nothing left to move them"
                << (cfg.datelines ? "" : " (with router.datelines false the rings' buffers can wait on each other "
                                         "in a cycle)")
                << "\n";
      code = kExitFail;
    }
    if (!csv)
      std::cout << topo.describe() << ", " << cfg.model << " model, " << to_string(coll) << " by "
                << to_string(alg) << "\n";
    std::vector<std::string> head{"bytes", "time_ns", "bound_time_ns", "bound/time", "GB/s_per_chip"};
    if (!csv) head.push_back("wall_s");
    rows_done = rows.size();
    print_rows(head, rows, csv);
  }
  progress_line.clear();
  out["wall_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (!stopped.empty()) out["error"] = stopped;
  if (args.count("json")) {
    write_output_file(args["json"].as<std::string>(), json_text(out, 2) + "\n");
  }
  if (!stopped.empty()) {
    const std::string also = args.count("json") ? " (also in " + args["json"].as<std::string>() + ")" : "";
    std::cerr << argv[0] << ": " << stopped << (rows_done > 0 ? ": the results above are theirs" + also : "")
              << "\n";
    return kExitStopped;
  }
  return code;
}

}  // namespace mxc::app
