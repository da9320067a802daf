#include "cosim/system_config.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace mxc {

namespace {

class Reader {
 public:
  explicit Reader(std::string origin) : m_origin(std::move(origin)) {}

  [[noreturn]] void fail(const YAML::Node& n, const std::string& field, const std::string& why) const {
    const int line = n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
    throw std::invalid_argument(m_origin + ":" + std::to_string(line) + ": field '" + field + "': " + why);
  }

  /// Rejects keys other than `known` in map `n` (typos must not pass silently).
  void only(const YAML::Node& n, const std::string& where, const std::set<std::string>& known) const {
    if (!n.IsMap()) fail(n, where, "expected a mapping");
    for (const auto& kv : n) {
      const auto key = kv.first.as<std::string>();
      if (!known.count(key)) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        fail(kv.first, where + "." + key, "unknown key (known: " + list + ")");
      }
    }
  }

  template <typename T>
  T get(const YAML::Node& parent, const std::string& where, const char* key, T fallback) const {
    const YAML::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) return fallback;
    try {
      return n.as<T>();
    } catch (const YAML::Exception&) {
      fail(n, where + "." + key, "not a valid value: '" + (n.IsScalar() ? n.Scalar() : std::string("<mapping>")) + "'");
    }
  }

  const std::string& origin() const { return m_origin; }

 private:
  std::string m_origin;
};

TileKind tile_kind(const Reader& r, const YAML::Node& n, const std::string& field) {
  const std::string s = n.as<std::string>();
  if (s == "rtl") return TileKind::kRtl;
  if (s == "model") return TileKind::kModel;
  r.fail(n, field, "must be 'rtl' or 'model', not '" + s + "'");
}

}  // namespace

SystemConfig default_system_config() { return SystemConfig{}; }

void validate(const SystemConfig& c) {
  const auto bad = [&](const std::string& field, const std::string& why) {
    throw std::invalid_argument(c.file + ": field '" + field + "': " + why);
  };
  if (c.chips == 0 || c.chips > 4096) bad("system.chips", "must be in 1..4096");
  if (c.tiles_per_chip == 0 || c.tiles_per_chip > 64) bad("system.tiles_per_chip", "must be in 1..64");
  if (c.rows == 0 || c.cols == 0) bad("system.tile.rows", "rows and cols must be >= 1");
  if (!(c.tile_mhz > 0) || c.tile_mhz > 1e5) bad("system.tile.clock_mhz", "must be in (0, 100000]");
  if (c.tile_kinds.size() != c.tiles_per_chip)
    bad("system.tile.kinds", "lists " + std::to_string(c.tile_kinds.size()) + " kinds for " +
                                 std::to_string(c.tiles_per_chip) + " tiles per chip");
  if (c.memory != "ideal" && c.memory != "hbm") bad("system.memory.kind", "must be 'ideal' or 'hbm'");
  if (c.memory == "hbm" && c.hbm_config.empty()) bad("system.memory.config", "an HBM preset is required for kind hbm");
  if (c.ideal_outstanding == 0) bad("system.memory.outstanding", "must be >= 1");
  if (c.chips > 1 && c.ici_config.empty()) bad("system.fabric.config", "a fabric is required for more than one chip");
  if (!(c.backpressure >= 0.0 && c.backpressure < 1.0)) bad("system.checks.backpressure", "must be in [0, 1)");
  if (c.tolerance_percent < 0) bad("system.checks.tolerance_percent", "must be >= 0");
  if (c.watchdog_cycles == 0) bad("system.checks.watchdog_cycles", "must be >= 1");
}

SystemConfig parse_system_config(const std::string& text, const std::string& origin, const std::string& base_dir) {
  Reader r(origin);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw std::invalid_argument(origin + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax: " + e.msg);
  }
  SystemConfig c;
  c.file = origin;
  if (!root.IsMap() || !root["system"]) r.fail(root, "system", "missing: the file must have a top-level 'system' mapping");
  r.only(root, "", {"system"});
  const YAML::Node s = root["system"];
  r.only(s, "system", {"chips", "tiles_per_chip", "tile", "memory", "fabric", "checks"});
  c.chips = r.get<std::uint32_t>(s, "system", "chips", c.chips);
  c.tiles_per_chip = r.get<std::uint32_t>(s, "system", "tiles_per_chip", c.tiles_per_chip);
  const auto resolve = [&](const std::string& p) {
    if (p.empty() || std::filesystem::path(p).is_absolute()) return p;
    return (std::filesystem::path(base_dir) / p).lexically_normal().string();
  };

  c.tile_kinds.assign(c.tiles_per_chip, TileKind::kRtl);
  if (const YAML::Node t = s["tile"]) {
    r.only(t, "system.tile", {"rows", "cols", "clock_mhz", "kind", "kinds"});
    c.rows = r.get<std::uint32_t>(t, "system.tile", "rows", c.rows);
    c.cols = r.get<std::uint32_t>(t, "system.tile", "cols", c.cols);
    c.tile_mhz = r.get<double>(t, "system.tile", "clock_mhz", c.tile_mhz);
    if (const YAML::Node k = t["kind"]) c.tile_kinds.assign(c.tiles_per_chip, tile_kind(r, k, "system.tile.kind"));
    if (const YAML::Node ks = t["kinds"]) {
      if (!ks.IsSequence()) r.fail(ks, "system.tile.kinds", "expected a list such as [rtl, model]");
      c.tile_kinds.clear();
      for (std::size_t i = 0; i < ks.size(); ++i)
        c.tile_kinds.push_back(tile_kind(r, ks[i], "system.tile.kinds[" + std::to_string(i) + "]"));
      if (c.tile_kinds.size() != c.tiles_per_chip)
        r.fail(ks, "system.tile.kinds", "lists " + std::to_string(c.tile_kinds.size()) + " kinds for " +
                                            std::to_string(c.tiles_per_chip) + " tiles per chip");
    }
  }
  if (const YAML::Node m = s["memory"]) {
    r.only(m, "system.memory", {"kind", "config", "latency_ns", "outstanding"});
    c.memory = r.get<std::string>(m, "system.memory", "kind", c.memory);
    if (c.memory != "ideal" && c.memory != "hbm") r.fail(m["kind"], "system.memory.kind", "must be 'ideal' or 'hbm'");
    c.hbm_config = resolve(r.get<std::string>(m, "system.memory", "config", ""));
    const double lat = r.get<double>(m, "system.memory", "latency_ns", c.ideal_latency_ps / 1000.0);
    if (!(lat >= 0) || lat > 1e9) r.fail(m["latency_ns"], "system.memory.latency_ns", "must be in [0, 1e9]");
    c.ideal_latency_ps = static_cast<Time>(lat * 1000.0 + 0.5);
    c.ideal_outstanding = r.get<std::uint32_t>(m, "system.memory", "outstanding", c.ideal_outstanding);
    if (!c.hbm_config.empty() && !std::filesystem::exists(c.hbm_config))
      r.fail(m["config"], "system.memory.config", "no such file '" + c.hbm_config + "'");
  }
  if (const YAML::Node f = s["fabric"]) {
    r.only(f, "system.fabric", {"config"});
    c.ici_config = resolve(r.get<std::string>(f, "system.fabric", "config", ""));
    if (!c.ici_config.empty() && !std::filesystem::exists(c.ici_config))
      r.fail(f["config"], "system.fabric.config", "no such file '" + c.ici_config + "'");
  }
  if (const YAML::Node k = s["checks"]) {
    r.only(k, "system.checks",
           {"compare_model", "tolerance_cycles", "tolerance_percent", "backpressure", "watchdog_cycles", "hbm_timing_check"});
    c.hbm_timing_check = r.get<bool>(k, "system.checks", "hbm_timing_check", c.hbm_timing_check);
    c.compare_model = r.get<bool>(k, "system.checks", "compare_model", c.compare_model);
    c.tolerance_cycles = r.get<std::uint64_t>(k, "system.checks", "tolerance_cycles", c.tolerance_cycles);
    c.tolerance_percent = r.get<double>(k, "system.checks", "tolerance_percent", c.tolerance_percent);
    c.backpressure = r.get<double>(k, "system.checks", "backpressure", c.backpressure);
    c.watchdog_cycles = r.get<std::uint64_t>(k, "system.checks", "watchdog_cycles", c.watchdog_cycles);
  }
  try {
    validate(c);
  } catch (const std::invalid_argument& e) {
    // validate() names the file; anchor the message at the system mapping.
    std::string msg = e.what();
    if (msg.rfind(origin + ": ", 0) == 0) msg = msg.substr(origin.size() + 2);
    const int line = s.Mark().line >= 0 ? s.Mark().line + 1 : 0;
    throw std::invalid_argument(origin + ":" + std::to_string(line) + ": " + msg);
  }
  return c;
}

SystemConfig load_system_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open the system configuration");
  std::stringstream text;
  text << in.rdbuf();
  return parse_system_config(text.str(), path, std::filesystem::path(path).parent_path().string());
}

}  // namespace mxc
