#include "cosim/system_config.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "models/core/clock_domain.h"
#include "models/core/yaml_reader.h"
#include "models/hbm/config_loader.h"
#include "models/ici/ici_config_loader.h"
#include "models/ici/topology.h"

namespace mxc {

namespace {

TileKind tile_kind(const YamlReader& r, const YAML::Node& n, const std::string& field) {
  const std::string s = r.string(n, field);
  if (s == "rtl") return TileKind::kRtl;
  if (s == "model") return TileKind::kModel;
  r.fail(n, field, "must be 'rtl' or 'model', not '" + s + "'");
}

}  // namespace

std::string config_where(const SystemConfig& cfg, const std::string& field) {
  if (const auto it = cfg.set_by_option.find(field); it != cfg.set_by_option.end()) return it->second;
  const int line = cfg.source ? field_line(*cfg.source, field) : 0;
  return line > 0 ? cfg.file + ":" + std::to_string(line) : cfg.file;
}

bool has_rtl_tile(const SystemConfig& cfg) {
  return std::find(cfg.tile_kinds.begin(), cfg.tile_kinds.end(), TileKind::kRtl) != cfg.tile_kinds.end();
}

SystemConfig default_system_config() { return SystemConfig{}; }

namespace {
// Tile cycles `ps` lasts at the period the run uses (10^6 / tile_mhz rounded to whole
// picoseconds): 99 000 MHz runs at 10 ps, 100 000 MHz, so the configured MHz undercounts.
double tile_cycles(const SystemConfig& c, Time ps) {
  return static_cast<double>(ps) / static_cast<double>(ClockDomain::from_mhz("tile", c.tile_mhz).period());
}
}  // namespace

void validate(const SystemConfig& c, bool overridable) {
  const auto bad = [&](const std::string& field, const std::string& why) {
    throw ConfigFieldError(config_where(c, field), field, why);
  };
  // An instruction names a chip in 8 bits (ICI_SEND's DST_CHIP), as the reference and the
  // compiler hold: more chips would load and then fail once the run is under way.
  if (c.chips == 0 || c.chips > kMaxChips) bad("system.chips", "must be in 1.." + std::to_string(kMaxChips));
  if (c.tiles_per_chip == 0 || c.tiles_per_chip > 64) bad("system.tiles_per_chip", "must be in 1..64");
  // The file's range, for the command line's --rows and --cols too.
  for (const auto& [field, side] : {std::pair{"system.tile.rows", c.rows}, {"system.tile.cols", c.cols}})
    if (side == 0 || side > kMaxTileSide)
      bad(field, "must be in [1, " + std::to_string(kMaxTileSide) + "], got " + std::to_string(side));
  // The range the file's field is read with: below 1 kHz a cycle passes
  // picosecond time's range in a long run.
  if (!(c.tile_mhz >= 1e-3 && c.tile_mhz <= 1e5)) {
    std::ostringstream got;
    got << c.tile_mhz;
    bad("system.tile.clock_mhz", "must be in [0.001, 100000], got " + got.str());
  }
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
  // A tile waits the latency for its data, often with nothing else to do:
  // a latency of the watchdog's cycles or more would stop runs as hung.
  const double latency_cycles = tile_cycles(c, c.ideal_latency_ps);
  if (overridable && c.memory == "ideal" && latency_cycles >= static_cast<double>(c.watchdog_cycles))
    bad("system.memory.latency_ns", (std::ostringstream() << c.ideal_latency_ps / 1000.0).str() + " ns is " +
                                        std::to_string(static_cast<std::uint64_t>(latency_cycles)) + " tile cycles, " +
                                        "not below system.checks.watchdog_cycles " +
                                        std::to_string(c.watchdog_cycles) + ": runs would stop as hung");
}

std::string fabric_misfit(std::uint32_t chips, std::uint32_t fabric_chips, const std::string& fabric) {
  if (chips <= fabric_chips) return "";
  return std::to_string(chips) + " chips do not fit the fabric of " + std::to_string(fabric_chips) + " chips in " +
         fabric + ": give at most " + std::to_string(fabric_chips) + " chips or a larger fabric";
}

void check_fabric_latency(const SystemConfig& cfg) {
  if (cfg.chips < 2 || cfg.ici_config.empty()) return;
  const ici::IciConfig ici = ici::load_ici_config(cfg.ici_config);
  const ici::Topology topo(ici.dims, ici.wrap);
  const std::uint32_t chips = std::min(cfg.chips, topo.num_chips());
  std::uint32_t hops = 0;
  if (chips <= 512) {
    for (std::uint32_t a = 0; a < chips; ++a)
      for (std::uint32_t b = 0; b < chips; ++b) hops = std::max(hops, topo.hops(a, b));
  } else {
    hops = topo.diameter();
  }
  const Time ps = ici.zero_load_ps(hops, 0);
  const double cycles = tile_cycles(cfg, ps);
  if (cycles < static_cast<double>(cfg.watchdog_cycles)) return;
  std::ostringstream why;
  why << config_where(cfg, "system.checks.watchdog_cycles") << ": field 'system.checks.watchdog_cycles': "
      << cfg.watchdog_cycles
      << " tile cycles is not above the fabric's latency over its longest path of " << hops << " hops, "
      << static_cast<double>(ps) / 1000.0 << " ns with no traffic (" << cfg.ici_config << "), "
      << static_cast<std::uint64_t>(cycles) << " tile cycles at " << cfg.tile_mhz << " MHz ("
      << ClockDomain::from_mhz("tile", cfg.tile_mhz).period()
      << " ps): runs would stop as hung; raise watchdog_cycles";
  throw std::invalid_argument(why.str());
}

namespace {
// A run reads the HBM preset and the fabric again after the loader (the checks, each chip set,
// the model's shadow, a server): a pipe or a FIFO gives its text once, and the next read would
// block or find nothing.
void require_regular_file(const YamlReader& r, const YAML::Node& at, const std::string& field,
                          const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st) || std::filesystem::is_regular_file(st) ||
      std::filesystem::is_directory(st))
    return;  // the loader's own error (no such file, a directory) says what is wrong
  r.fail(at, field, path + " is not a regular file (a pipe or a device?): a run reads it more than once");
}

// Every chip needs a place on the fabric. Checked here, where the line of system.chips is
// known, rather than only when the run builds the fabric (ChipSet checks again for systems
// not loaded from a file).
void check_fabric_fits(const YamlReader& r, const YAML::Node& s, const SystemConfig& c) {
  if (c.chips < 2) return;
  require_regular_file(r, s["fabric"]["config"], "system.fabric.config", c.ici_config);
  std::uint32_t fabric = 0;
  try {
    const ici::IciConfig ici = ici::load_ici_config(c.ici_config);
    fabric = ici::Topology(ici.dims, ici.wrap).num_chips();
  } catch (const std::exception& e) {
    // The fabric file's own error, from the line of the system file that names it.
    r.fail(s["fabric"]["config"], "system.fabric.config", e.what());
  }
  const int line = s["fabric"]["config"].Mark().line;
  const std::string why =
      fabric_misfit(c.chips, fabric, c.ici_config + " (system.fabric.config, line " + std::to_string(line + 1) + ")");
  if (!why.empty()) r.fail(s["chips"], "system.chips", why);
}

// The HBM preset is read here too, so that an error in it is said before anything runs,
// from the line of the system file that names it, as the fabric's is.
void check_hbm_preset(const YamlReader& r, const YAML::Node& s, const SystemConfig& c) {
  if (c.memory != "hbm" || c.hbm_config.empty()) return;
  require_regular_file(r, s["memory"]["config"], "system.memory.config", c.hbm_config);
  try {
    hbm::load_memory_config(c.hbm_config);
  } catch (const std::exception& e) {
    r.fail(s["memory"]["config"], "system.memory.config", e.what());
  }
}
}  // namespace

SystemConfig parse_system_config(const std::string& text, const std::string& origin, const std::string& base_dir) {
  const YamlReader r(origin);
  const YAML::Node root = r.load(text);
  SystemConfig c;
  c.file = origin;
  // Unknown keys first: a misspelt 'system' is named, not reported missing.
  if (root.IsMap()) r.keys(root, "", {"system"});
  if (!root.IsMap() || !root["system"]) r.fail(root, "system", "missing: the file must have a top-level 'system' mapping");
  const YAML::Node s = root["system"];
  r.keys(s, "system", {"chips", "tiles_per_chip", "tile", "memory", "fabric", "checks"});
  if (s["chips"]) c.chips = r.uint(s["chips"], "system.chips", 1, kMaxChips);
  if (s["tiles_per_chip"]) c.tiles_per_chip = r.uint(s["tiles_per_chip"], "system.tiles_per_chip", 1, 64);
  const auto resolve = [&](const std::string& p) {
    if (p.empty() || std::filesystem::path(p).is_absolute()) return p;
    return (std::filesystem::path(base_dir) / p).lexically_normal().string();
  };

  c.tile_kinds.assign(c.tiles_per_chip, TileKind::kRtl);
  if (const YAML::Node t = s["tile"]) {
    r.keys(t, "system.tile", {"rows", "cols", "clock_mhz", "kind", "kinds"});
    if (t["rows"]) c.rows = r.uint(t["rows"], "system.tile.rows", 1, kMaxTileSide);
    if (t["cols"]) c.cols = r.uint(t["cols"], "system.tile.cols", 1, kMaxTileSide);
    if (t["clock_mhz"]) c.tile_mhz = r.number(t["clock_mhz"], "system.tile.clock_mhz", 1e-3, 1e5);
    if (t["kind"] && t["kinds"])
      r.fail(t["kinds"], "system.tile.kinds", "give kind (every tile) or kinds (each tile), not both");
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
    r.keys(m, "system.memory", {"kind", "config", "latency_ns", "outstanding"});
    if (m["kind"]) {
      c.memory = r.string(m["kind"], "system.memory.kind");
      if (c.memory != "ideal" && c.memory != "hbm") r.fail(m["kind"], "system.memory.kind", "must be 'ideal' or 'hbm'");
    }
    // Each kind reads its own fields: another kind's would be ignored without a word.
    if (c.memory == "ideal" && m["config"])
      r.fail(m["config"], "system.memory.config", "an HBM preset, but the memory is kind ideal (set kind: hbm)");
    if (m["config"]) {
      c.hbm_config = resolve(r.string(m["config"], "system.memory.config"));
      if (!std::filesystem::exists(c.hbm_config))
        r.fail(m["config"], "system.memory.config", "no such file '" + c.hbm_config + "'");
    }
    if (m["latency_ns"]) c.ideal_latency_ps = r.ns(m["latency_ns"], "system.memory.latency_ns");
    if (m["outstanding"]) c.ideal_outstanding = r.uint(m["outstanding"], "system.memory.outstanding", 1, 1u << 20);
    for (const char* key : {"latency_ns", "outstanding"})
      if (c.memory == "hbm" && m[key])
        r.fail(m[key], std::string("system.memory.") + key, "an ideal memory's field, but the memory is kind hbm");
  }
  if (const YAML::Node f = s["fabric"]) {
    r.keys(f, "system.fabric", {"config"});
    if (f["config"]) {
      c.ici_config = resolve(r.string(f["config"], "system.fabric.config"));
      if (!std::filesystem::exists(c.ici_config))
        r.fail(f["config"], "system.fabric.config", "no such file '" + c.ici_config + "'");
    }
  }
  if (const YAML::Node k = s["checks"]) {
    r.keys(k, "system.checks",
           {"compare_model", "tolerance_cycles", "tolerance_percent", "backpressure", "watchdog_cycles", "hbm_timing_check"});
    if (k["compare_model"]) c.compare_model = r.boolean(k["compare_model"], "system.checks.compare_model");
    if (k["tolerance_cycles"]) c.tolerance_cycles = r.uint64(k["tolerance_cycles"], "system.checks.tolerance_cycles");
    if (k["tolerance_percent"])
      c.tolerance_percent = r.number(k["tolerance_percent"], "system.checks.tolerance_percent", 0, 1e6);
    // A probability below 1 (YamlReader's ranges are closed): .nan and .inf are out of this
    // range too, not of all doubles'.
    if (const YAML::Node b = k["backpressure"]) {
      const std::string field = "system.checks.backpressure";
      try {
        c.backpressure = b.as<double>();
      } catch (const YAML::Exception&) {
        r.fail(b, field, "expected a number");
      }
      if (!(c.backpressure >= 0.0 && c.backpressure < 1.0)) r.fail(b, field, "must be in [0, 1)");
    }
    if (k["watchdog_cycles"]) c.watchdog_cycles = r.uint64(k["watchdog_cycles"], "system.checks.watchdog_cycles");
    if (k["hbm_timing_check"]) c.hbm_timing_check = r.boolean(k["hbm_timing_check"], "system.checks.hbm_timing_check");
  }
  c.source = std::make_shared<const YAML::Node>(root);
  try {
    validate(c, false);
  } catch (const ConfigFieldError& e) {
    r.fail_at_field(root, e.field, e.why);  // at the field's line, or its nearest ancestor's
  }
  // A fabric links chips: on one chip nothing would read it.
  if (c.chips == 1 && !c.ici_config.empty())
    r.fail(s["fabric"]["config"], "system.fabric.config",
           "a fabric links chips, and the system has one (system.chips is 1): give chips 2 or more, or no fabric");
  check_fabric_fits(r, s, c);
  check_hbm_preset(r, s, c);
  return c;
}

SystemConfig load_system_config(const std::string& path) {
  // The reason, as an HBM preset's or a fabric's missing file gives it.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec)
    throw std::invalid_argument(path + ": cannot open the system configuration: no such file");
  return parse_system_config(read_config_file(path, "the system configuration"), path,
                             std::filesystem::path(path).parent_path().string());
}

}  // namespace mxc
