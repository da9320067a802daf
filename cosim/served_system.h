#pragma once
// What a system config puts on a transport server: its memories (one per
// chip) and its fabric (docs/transport.md), and how a run uses what a server
// serves. Shared by `mxcosim serve`, `mxcosim run --connect`, the transport
// tests and benchmark.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bridge/transport/chip_port.h"
#include "bridge/transport/client_session.h"
#include "bridge/transport/served_models.h"
#include "cosim/system_config.h"
#include "cosim/system_run.h"

namespace mxc {

inline transport::ServedSystem served_system(const SystemConfig& cfg) {
  transport::ServedSystem s;
  s.chips = cfg.chips;
  s.tiles_per_chip = cfg.tiles_per_chip;
  s.memory = cfg.memory;
  s.ideal_latency_ps = cfg.ideal_latency_ps;
  s.ideal_outstanding = cfg.ideal_outstanding;
  s.hbm_config = cfg.hbm_config;
  s.hbm_timing_check = cfg.hbm_timing_check;
  s.ici_config = cfg.ici_config;
  return s;
}

/// What every client of a split run must agree on beyond the config hash (the served system)
/// and the seed, which the server checks when a client joins the run (docs/transport.md): the
/// rest of the system config and the workload, one "key=value" line each, the program file by a
/// hash of its contents. Clients that differ here would simulate different systems.
inline std::string split_run_terms(const SystemRunOptions& o) {
  const SystemConfig& c = o.system;
  const auto number = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.17g", v);
    return std::string(b);
  };
  std::string kinds;
  for (TileKind k : c.tile_kinds) kinds += (kinds.empty() ? "" : ",") + std::string(k == TileKind::kRtl ? "rtl" : "model");
  std::string program;  // per file: "contents HASH", ", " between them
  for (const std::string& file : o.workload.program_files) {
    std::ifstream in(file, std::ios::binary);
    std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 of the contents
    for (char ch; in.get(ch);) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ull;
    char b[40];
    std::snprintf(b, sizeof b, "contents %016llx", static_cast<unsigned long long>(h));
    // Unreadable: the run itself then says why.
    program += (program.empty() ? "" : ", ") + std::string(in.eof() && !in.bad() ? b : "unreadable");
  }
  const std::vector<std::pair<const char*, std::string>> terms = {
      {"rows", std::to_string(c.rows)},
      {"cols", std::to_string(c.cols)},
      {"tile_mhz", number(c.tile_mhz)},
      {"tile_kinds", kinds},
      {"compare_model", c.compare_model ? "true" : "false"},
      {"tolerance_cycles", std::to_string(c.tolerance_cycles)},
      {"tolerance_percent", number(c.tolerance_percent)},
      {"backpressure", number(c.backpressure)},
      {"hbm_timing_check", c.hbm_timing_check ? "true" : "false"},
      {"watchdog_cycles", std::to_string(c.watchdog_cycles)},
      {"workload", o.workload.kind},
      {"m", std::to_string(o.workload.shape.m)},
      {"k", std::to_string(o.workload.shape.k)},
      {"n", std::to_string(o.workload.shape.n)},
      {"dtype", std::string(to_string(o.workload.shape.dtype))},
      {"split", o.workload.split},
      {"hidden", std::to_string(o.workload.hidden)},
      {"program", program},
      {"mutant", o.mutant},
      {"inject_fault", o.inject_fault ? std::to_string(*o.inject_fault) : ""},
  };
  std::string text;
  for (const auto& [key, value] : terms) text += std::string(key) + "=" + value + "\n";
  return text;
}

/// Makes `o` run with what the server of `s` serves, as its HELLO said: the proxies of its
/// memories and of its fabric or, for a split run (`s` opened with ClientOptions::split), the
/// port to the fabric it shares between the clients. What the server does not serve, the run
/// builds itself, exactly as in one process. The served models are fresh per session, so a
/// second system (a re-run) needs a session of its own.
inline void use_served_models(SystemRunOptions& o, const std::shared_ptr<transport::ClientSession>& s) {
  o.make_memory = nullptr;
  o.make_fabric = nullptr;
  o.make_port = nullptr;
  o.chips.clear();
  if (s->serves_memories())
    o.make_memory = [s](std::uint32_t chip, const std::string& name) {
      return transport::ClientSession::make_memory(s, chip, name);
    };
  if (s->options().split) {
    o.chips = s->options().chips;
    o.make_port = [s] { return std::make_unique<transport::ChipPort>(s); };
  } else if (s->fabric_chips() > 0) {
    o.make_fabric = [s] { return transport::ClientSession::make_fabric(s); };
  }
}

/// "memories and fabric served by ADDR", "fabric served by ADDR, memories simulated here", ...
inline std::string served_models_text(const SystemRunOptions& o, const transport::ClientSession& s) {
  const bool fabric = s.fabric_chips() > 0;
  std::string served = s.serves_memories() ? (fabric ? "memories and fabric" : "memories") : "fabric";
  std::string here = !s.serves_memories() ? "memories" : (!fabric && o.system.chips > 1) ? "fabric" : "";
  return served + " served by " + s.address() + (here.empty() ? "" : ", " + here + " simulated here");
}

}  // namespace mxc
