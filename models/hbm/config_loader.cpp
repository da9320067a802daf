#include "models/hbm/config_loader.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "models/hbm/address_mapper.h"

namespace mxc::hbm {

namespace {

std::string join(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }

class Reader {
 public:
  explicit Reader(std::string file) : m_file(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& n, const std::string& field, const std::string& what) const {
    const int line = n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
    throw std::runtime_error(m_file + ":" + std::to_string(line) + ": " + field + ": " + what);
  }

  /// Rejects keys outside `known` (typos must not pass silently).
  void only(const YAML::Node& map, const std::string& where, std::set<std::string> known) const {
    if (!map.IsMap()) fail(map, where, "expected a mapping");
    for (const auto& kv : map) {
      const std::string key = kv.first.as<std::string>();
      if (!known.count(key)) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        fail(kv.first, where.empty() ? key : join(where, key), "unknown field (known: " + list + ")");
      }
    }
  }

  std::uint64_t uint(const YAML::Node& map, const std::string& where, const char* key, std::uint64_t def,
                     bool positive = true) const {
    const YAML::Node n = map[key];
    if (!n) return def;
    const std::string field = join(where, key);
    std::uint64_t v = 0;
    try {
      if (!n.IsScalar() || n.Scalar().empty() || n.Scalar()[0] == '-') throw YAML::Exception(n.Mark(), "");
      v = n.as<std::uint64_t>();
    } catch (const YAML::Exception&) {
      fail(n, field, std::string("expected a ") + (positive ? "positive" : "non-negative") + " integer, got '" +
                         (n.IsScalar() ? n.Scalar() : std::string("<not a scalar>")) + "'");
    }
    if (positive && v == 0) fail(n, field, "must be > 0");
    return v;
  }

  double real(const YAML::Node& map, const std::string& where, const char* key, double def) const {
    const YAML::Node n = map[key];
    if (!n) return def;
    try {
      const double v = n.as<double>();
      if (!(v > 0) || !std::isfinite(v)) throw YAML::Exception(n.Mark(), "");
      return v;
    } catch (const YAML::Exception&) {
      fail(n, join(where, key), "expected a positive number");
    }
  }

  std::string str(const YAML::Node& map, const std::string& where, const char* key, const std::string& def) const {
    const YAML::Node n = map[key];
    if (!n) return def;
    if (!n.IsScalar()) fail(n, join(where, key), "expected a string");
    return n.Scalar();
  }

  bool boolean(const YAML::Node& map, const std::string& where, const char* key, bool def) const {
    const YAML::Node n = map[key];
    if (!n) return def;
    try {
      return n.as<bool>();
    } catch (const YAML::Exception&) {
      fail(n, join(where, key), "expected true or false");
    }
  }

  /// A timing in cycles: an integer, or "<x>ns" rounded up to whole tCK.
  std::uint32_t cycles(const YAML::Node& map, const std::string& where, const char* key, Time tck_ps,
                       bool required, std::uint32_t def = 0, bool round_down = false) const {
    const YAML::Node n = map[key];
    const std::string field = join(where, key);
    if (!n) {
      if (required) fail(map, field, "missing");
      return def;
    }
    if (!n.IsScalar()) fail(n, field, "expected cycles (integer) or nanoseconds (\"12.5ns\")");
    const std::string s = n.Scalar();
    if (s.size() > 2 && s.substr(s.size() - 2) == "ns") {
      double ns = 0;
      try {
        std::size_t used = 0;
        ns = std::stod(s.substr(0, s.size() - 2), &used);
        if (used != s.size() - 2) throw std::invalid_argument("");
      } catch (const std::exception&) {
        fail(n, field, "bad nanosecond value '" + s + "'");
      }
      if (!(ns >= 0) || ns > 1e9) fail(n, field, "out of range: '" + s + "'");
      // JEDEC rounding: nCK = ceil(t / tCK), with a small guard against
      // floating-point noise on exact multiples.
      // Refresh intervals are maxima and round down instead.
      const double n_ck = ns * 1000.0 / static_cast<double>(tck_ps);
      return static_cast<std::uint32_t>(round_down ? std::floor(n_ck + 1e-6) : std::ceil(n_ck - 1e-6));
    }
    return static_cast<std::uint32_t>(uint(map, where, key, def, false));
  }

  const std::string& file() const { return m_file; }

 private:
  std::string m_file;
};

HbmDeviceSpec parse_device(const Reader& r, const YAML::Node& d) {
  r.only(d, "device", {"name", "standard", "source", "data_rate_gbps", "organisation", "timing"});
  HbmDeviceSpec s;
  s.name = r.str(d, "device", "name", "unnamed");
  s.standard = r.str(d, "device", "standard", "");
  s.source = r.str(d, "device", "source", "");
  s.data_rate_gbps = r.real(d, "device", "data_rate_gbps", 0);
  if (s.data_rate_gbps == 0) r.fail(d, "device.data_rate_gbps", "missing");

  const YAML::Node o = d["organisation"];
  if (!o) r.fail(d, "device.organisation", "missing");
  const std::string ow = "device.organisation";
  r.only(o, ow, {"channels", "pseudo_channels", "bank_groups", "banks_per_group", "rows", "columns", "bus_bits",
                 "burst_length"});
  auto u32 = [&](const char* k, std::uint32_t def) {
    const std::uint64_t v = r.uint(o, ow, k, def);
    if (v > (1u << 30)) r.fail(o[k], ow + "." + k, "too large");
    return static_cast<std::uint32_t>(v);
  };
  s.org.channels = u32("channels", 0);
  s.org.pseudo_channels = u32("pseudo_channels", 1);
  s.org.bank_groups = u32("bank_groups", 0);
  s.org.banks_per_group = u32("banks_per_group", 0);
  s.org.rows = u32("rows", 0);
  s.org.columns = u32("columns", 0);
  s.org.bus_bits = u32("bus_bits", 0);
  s.org.burst_length = u32("burst_length", 0);
  for (const char* k : {"channels", "bank_groups", "banks_per_group", "rows", "columns", "bus_bits", "burst_length"})
    if (!o[k]) r.fail(o, ow + "." + k, "missing");
  if (s.org.bus_bits % 8 != 0) r.fail(o["bus_bits"], ow + ".bus_bits", "must be a multiple of 8");
  if (s.org.columns % s.org.burst_length != 0)
    r.fail(o["columns"], ow + ".columns", "must be a multiple of burst_length");

  const YAML::Node t = d["timing"];
  if (!t) r.fail(d, "device.timing", "missing");
  const std::string tw = "device.timing";
  r.only(t, tw, {"tCK_ps", "CL", "CWL", "RCDRD", "RCDWR", "RP", "RAS", "RC", "WR", "RTP", "CCD_S", "CCD_L", "RRD_S",
                 "RRD_L", "FAW", "WTR_S", "WTR_L", "RTW", "RFC", "RFCsb", "REFI", "REFIsb", "RREFD"});
  HbmTiming& x = s.t;
  x.tCK_ps = r.uint(t, tw, "tCK_ps", 0);
  if (x.tCK_ps == 0) r.fail(t, tw + ".tCK_ps", "missing");
  // Cycle counts then stay below 2^60 over the whole picosecond time range
  // (BankState packs a cycle and 3 bits in one word).
  if (x.tCK_ps < 16) r.fail(t["tCK_ps"], tw + ".tCK_ps", "must be at least 16 (a clock of at most 62.5 GHz)");
  const Time ck = x.tCK_ps;
  x.CL = r.cycles(t, tw, "CL", ck, true);
  x.CWL = r.cycles(t, tw, "CWL", ck, true);
  x.RCDRD = r.cycles(t, tw, "RCDRD", ck, true);
  x.RCDWR = r.cycles(t, tw, "RCDWR", ck, true);
  x.RP = r.cycles(t, tw, "RP", ck, true);
  x.RAS = r.cycles(t, tw, "RAS", ck, true);
  x.RC = r.cycles(t, tw, "RC", ck, true);
  x.WR = r.cycles(t, tw, "WR", ck, true);
  x.RTP = r.cycles(t, tw, "RTP", ck, true);
  x.CCD_S = r.cycles(t, tw, "CCD_S", ck, true);
  x.CCD_L = r.cycles(t, tw, "CCD_L", ck, true);
  x.RRD_S = r.cycles(t, tw, "RRD_S", ck, true);
  x.RRD_L = r.cycles(t, tw, "RRD_L", ck, true);
  x.FAW = r.cycles(t, tw, "FAW", ck, true);
  x.WTR_S = r.cycles(t, tw, "WTR_S", ck, true);
  x.WTR_L = r.cycles(t, tw, "WTR_L", ck, true);
  x.RFC = r.cycles(t, tw, "RFC", ck, true);
  x.RFCsb = r.cycles(t, tw, "RFCsb", ck, true);
  x.REFI = r.cycles(t, tw, "REFI", ck, true, 0, true);
  if (x.REFI == 0) r.fail(t["REFI"], tw + ".REFI", "must be > 0");

  // Data beats per clock: 2 for HBM2/2E (DDR), 4 for HBM3's data clock.
  const double beats = s.data_rate_gbps * static_cast<double>(ck) / 1000.0;
  const double rounded = std::round(beats);
  if (rounded < 1 || std::fabs(beats - rounded) > 0.01 * rounded ||
      s.org.burst_length % static_cast<std::uint32_t>(rounded) != 0)
    r.fail(t["tCK_ps"], tw + ".tCK_ps",
           "data_rate_gbps x tCK must be a whole number of beats per clock dividing burst_length (got " +
               std::to_string(beats) + ")");
  x.burst_cycles = s.org.burst_length / static_cast<std::uint32_t>(rounded);
  x.RTW = r.cycles(t, tw, "RTW", ck, false, x.CL + x.burst_cycles + 2 > x.CWL ? x.CL + x.burst_cycles + 2 - x.CWL : 1);
  x.REFIsb = r.cycles(t, tw, "REFIsb", ck, false, x.REFI / s.org.banks(), true);
  // tRREFD: 8 ns on HBM2 and HBM3 (JESD235D, JESD238; 8 at tCK 1 ns in
  // Ramulator's HBM2 speed table), rounded up to cycles as any time is.
  x.RREFD = r.cycles(t, tw, "RREFD", ck, false, static_cast<std::uint32_t>((8000 + ck - 1) / ck));
  if (x.REFIsb == 0) r.fail(t, tw + ".REFIsb", "must be > 0");
  return s;
}

ControllerConfig parse_controller(const Reader& r, const YAML::Node& c) {
  ControllerConfig k;
  if (!c) return k;
  const std::string w = "controller";
  r.only(c, w, {"read_queue", "write_queue", "scheduler", "starvation_cap", "page_policy", "write_high_watermark",
                "write_low_watermark", "refresh", "address_mapping", "xor_bank_hash", "dual_command",
                "frontend_cycles", "backend_cycles"});
  auto u32 = [&](const char* key, std::uint32_t def, bool positive) {
    const std::uint64_t v = r.uint(c, w, key, def, positive);
    if (v > 1u << 20) r.fail(c[key], w + "." + key, "too large");
    return static_cast<std::uint32_t>(v);
  };
  k.read_queue = u32("read_queue", k.read_queue, true);
  k.write_queue = u32("write_queue", k.write_queue, true);
  k.starvation_cap = u32("starvation_cap", k.starvation_cap, false);
  k.write_high_watermark = u32("write_high_watermark", k.write_queue * 3 / 4, true);
  k.write_low_watermark = u32("write_low_watermark", k.write_queue / 4, false);
  k.frontend_cycles = u32("frontend_cycles", k.frontend_cycles, false);
  k.backend_cycles = u32("backend_cycles", k.backend_cycles, false);
  const std::string sched = r.str(c, w, "scheduler", "frfcfs");
  if (sched != "frfcfs") r.fail(c["scheduler"], w + ".scheduler", "unknown scheduler '" + sched + "' (known: frfcfs)");
  const std::string page = r.str(c, w, "page_policy", "open");
  if (page == "open") k.page_policy = PagePolicy::kOpen;
  else if (page == "closed") k.page_policy = PagePolicy::kClosed;
  else r.fail(c["page_policy"], w + ".page_policy", "expected open or closed, got '" + page + "'");
  const std::string ref = r.str(c, w, "refresh", "all_bank");
  if (ref == "all_bank") k.refresh = RefreshMode::kAllBank;
  else if (ref == "per_bank") k.refresh = RefreshMode::kPerBank;
  else if (ref == "none") k.refresh = RefreshMode::kNone;
  else r.fail(c["refresh"], w + ".refresh", "expected all_bank, per_bank or none, got '" + ref + "'");
  k.address_mapping = r.str(c, w, "address_mapping", k.address_mapping);
  k.xor_bank_hash = r.boolean(c, w, "xor_bank_hash", k.xor_bank_hash);
  k.dual_command = r.boolean(c, w, "dual_command", k.dual_command);
  if (k.write_low_watermark >= k.write_high_watermark)
    r.fail(c, w + ".write_low_watermark", "must be below write_high_watermark");
  if (k.write_high_watermark > k.write_queue) r.fail(c, w + ".write_high_watermark", "must not exceed write_queue");
  return k;
}

}  // namespace

void validate(const MemoryConfig& cfg) {
  const HbmOrg& o = cfg.device.org;
  AddressMapper(o, cfg.controller.address_mapping, cfg.controller.xor_bank_hash);  // throws on a bad mapping
  if (cfg.stacks == 0) throw std::invalid_argument("memory.stacks must be > 0");
  if (cfg.stack_interleave_bytes == 0 || cfg.stack_interleave_bytes % o.burst_bytes() != 0)
    throw std::invalid_argument("memory.stack_interleave_bytes must be a positive multiple of the burst size (" +
                                std::to_string(o.burst_bytes()) + " bytes)");
  if (o.banks() > 65535 || o.bursts_per_row() > 65535)
    throw std::invalid_argument("device.organisation: at most 65535 banks per pseudo-channel and bursts per row");
  const ControllerConfig& c = cfg.controller;
  if (c.starvation_cap > 65535) throw std::invalid_argument("controller.starvation_cap must be <= 65535");
  if (c.read_queue == 0 || c.write_queue == 0) throw std::invalid_argument("controller queues must hold >= 1 burst");
  if (c.write_low_watermark >= c.write_high_watermark || c.write_high_watermark > c.write_queue)
    throw std::invalid_argument("controller watermarks need low < high <= write_queue");
  if (cfg.device.t.tCK_ps == 0 || cfg.device.t.burst_cycles == 0 || cfg.device.t.REFI == 0 ||
      cfg.device.t.REFIsb == 0)
    throw std::invalid_argument("device timing needs tCK, burst cycles, tREFI and tREFIsb > 0");
  if (cfg.device.t.tCK_ps < 16) throw std::invalid_argument("device timing needs tCK >= 16 ps");
}

MemoryConfig parse_memory_config(const std::string& text, const std::string& file) {
  Reader r(file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(file + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax: " + e.msg);
  }
  if (!root.IsMap()) throw std::runtime_error(file + ":1: expected a mapping with 'device', 'memory', 'controller'");
  r.only(root, "", {"device", "memory", "controller", "check_timing"});
  MemoryConfig cfg;
  cfg.file = file;
  const YAML::Node d = root["device"];
  if (!d) r.fail(root, "device", "missing");
  if (d.IsScalar()) {
    // A reference to a preset file, relative to this file.
    const auto base = std::filesystem::path(file).parent_path();
    const std::string path = (base / d.Scalar()).string();
    std::ifstream in(path);
    if (!in) r.fail(d, "device", "cannot open preset '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    Reader pr(path);
    YAML::Node pre;
    try {
      pre = YAML::Load(ss.str());
    } catch (const YAML::Exception& e) {
      throw std::runtime_error(path + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax: " + e.msg);
    }
    if (!pre.IsMap() || !pre["device"]) throw std::runtime_error(path + ":1: device: missing");
    cfg.device = parse_device(pr, pre["device"]);
  } else {
    cfg.device = parse_device(r, d);
  }
  if (const YAML::Node m = root["memory"]) {
    r.only(m, "memory", {"stacks", "stack_interleave_bytes"});
    const std::uint64_t stacks = r.uint(m, "memory", "stacks", 1);
    if (stacks > 1024) r.fail(m["stacks"], "memory.stacks", "too large (max 1024)");
    cfg.stacks = static_cast<std::uint32_t>(stacks);
    cfg.stack_interleave_bytes = r.uint(m, "memory", "stack_interleave_bytes", cfg.stack_interleave_bytes);
    if (cfg.stack_interleave_bytes % cfg.device.org.burst_bytes() != 0)
      r.fail(m["stack_interleave_bytes"], "memory.stack_interleave_bytes",
             "must be a multiple of the burst size (" + std::to_string(cfg.device.org.burst_bytes()) + " bytes)");
  }
  cfg.controller = parse_controller(r, root["controller"]);
  cfg.check_timing = r.boolean(root, "", "check_timing", false);
  try {
    AddressMapper(cfg.device.org, cfg.controller.address_mapping, cfg.controller.xor_bank_hash);
  } catch (const std::invalid_argument& e) {
    const YAML::Node c = root["controller"];
    r.fail(c && c["address_mapping"] ? c["address_mapping"] : root, "controller.address_mapping", e.what());
  }
  try {
    validate(cfg);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(file + ": " + e.what());
  }
  return cfg;
}

MemoryConfig load_memory_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open memory config");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_memory_config(ss.str(), path);
}

}  // namespace mxc::hbm
