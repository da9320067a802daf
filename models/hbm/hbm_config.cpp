#include "models/hbm/hbm_config.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>

namespace mxc {
namespace {

// Raises an error that names the file, the line and the field.
[[noreturn]] void fail(const std::string& file, const YAML::Node& at, const std::string& field,
                       const std::string& what) {
  const int line = at.Mark().line >= 0 ? at.Mark().line + 1 : 0;
  throw std::invalid_argument(file + ":" + std::to_string(line) + ": field '" + field + "': " + what);
}

template <typename T>
T scalar(const std::string& file, const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) fail(file, n, field, "expected a scalar value");
  try {
    if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
      const std::string s = n.Scalar();
      if (!s.empty() && s[0] == '-') fail(file, n, field, "must not be negative, got '" + s + "'");
    }
    return n.as<T>();
  } catch (const YAML::Exception&) {
    fail(file, n, field, "cannot read '" + n.Scalar() + "' as a " +
                             (std::is_same_v<T, bool> ? "boolean" : std::is_integral_v<T> ? "whole number" : "number"));
  }
}

// Applies each key of a mapping through a table of setters; unknown keys are errors (typos).
using Setter = std::function<void(const YAML::Node&, const std::string& field)>;
void apply_map(const std::string& file, const YAML::Node& node, const std::string& section,
               const std::map<std::string, Setter>& setters) {
  if (!node.IsMap()) fail(file, node, section, "expected a mapping");
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    const std::string field = section.empty() ? key : section + "." + key;
    auto it = setters.find(key);
    if (it == setters.end()) fail(file, kv.first, field, "unknown field");
    it->second(kv.second, field);
  }
}

template <typename T>
Setter set(const std::string& file, T& target) {
  return [&file, &target](const YAML::Node& n, const std::string& f) { target = scalar<T>(file, n, f); };
}

void apply_file(const std::string& path, HbmConfig& cfg, int depth) {
  if (depth > 8) throw std::invalid_argument(path + ": 'base' chain deeper than 8 files (a cycle?)");
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw std::invalid_argument(path + ": cannot open HBM config file");
  } catch (const YAML::ParserException& e) {
    throw std::invalid_argument(path + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
  if (root.IsNull()) return;
  if (!root.IsMap()) fail(path, root, "(top level)", "expected a mapping");
  if (const auto base = root["base"]) {
    const auto dir = std::filesystem::path(path).parent_path();
    apply_file((dir / scalar<std::string>(path, base, "base")).string(), cfg, depth + 1);
  }
  auto& o = cfg.spec.org;
  auto& t = cfg.spec.timing;
  auto& m = cfg.memory;
  auto& c = cfg.controller;
  const std::string& f = path;
  const std::map<std::string, Setter> org = {
      {"channels", set(f, o.channels)},     {"pseudo_channels", set(f, o.pseudo_channels)},
      {"bank_groups", set(f, o.bank_groups)}, {"banks_per_group", set(f, o.banks_per_group)},
      {"rows", set(f, o.rows)},             {"columns", set(f, o.columns)},
      {"bus_width_bits", set(f, o.bus_width_bits)}, {"burst_length", set(f, o.burst_length)},
      {"data_rate_gbps", set(f, o.data_rate_gbps)}};
  const std::map<std::string, Setter> timing = {
      {"tCK_ps", set(f, t.tCK_ps)}, {"CL", set(f, t.CL)},       {"CWL", set(f, t.CWL)},
      {"RCDRD", set(f, t.RCDRD)},   {"RCDWR", set(f, t.RCDWR)}, {"RP", set(f, t.RP)},
      {"RAS", set(f, t.RAS)},       {"RC", set(f, t.RC)},       {"WR", set(f, t.WR)},
      {"RTP", set(f, t.RTP)},       {"CCD_S", set(f, t.CCD_S)}, {"CCD_L", set(f, t.CCD_L)},
      {"RRD_S", set(f, t.RRD_S)},   {"RRD_L", set(f, t.RRD_L)}, {"FAW", set(f, t.FAW)},
      {"WTR_S", set(f, t.WTR_S)},   {"WTR_L", set(f, t.WTR_L)}, {"RTW", set(f, t.RTW)},
      {"RFC", set(f, t.RFC)},       {"RFCsb", set(f, t.RFCsb)}, {"REFI", set(f, t.REFI)},
      {"REFIsb", set(f, t.REFIsb)}};
  const std::map<std::string, Setter> memory = {
      {"stacks", set(f, m.stacks)},
      {"stack_interleave_bytes", set(f, m.stack_interleave_bytes)},
      {"mapping", set(f, m.mapping)},
      {"xor_bank_hash", set(f, m.xor_bank_hash)}};
  const std::map<std::string, Setter> controller = {
      {"read_queue", set(f, c.read_queue)},
      {"write_queue", set(f, c.write_queue)},
      {"page_policy",
       [&](const YAML::Node& n, const std::string& fld) {
         const auto v = scalar<std::string>(f, n, fld);
         if (v == "open") c.page_policy = PagePolicy::kOpen;
         else if (v == "closed") c.page_policy = PagePolicy::kClosed;
         else fail(f, n, fld, "expected 'open' or 'closed', got '" + v + "'");
       }},
      {"refresh",
       [&](const YAML::Node& n, const std::string& fld) {
         const auto v = scalar<std::string>(f, n, fld);
         if (v == "all_bank") c.refresh = RefreshMode::kAllBank;
         else if (v == "per_bank") c.refresh = RefreshMode::kPerBank;
         else if (v == "none") c.refresh = RefreshMode::kNone;
         else fail(f, n, fld, "expected 'all_bank', 'per_bank' or 'none', got '" + v + "'");
       }},
      {"starvation_cycles", set(f, c.starvation_cycles)},
      {"write_high_watermark", set(f, c.write_high_watermark)},
      {"write_low_watermark", set(f, c.write_low_watermark)},
      {"frontend_cycles", set(f, c.frontend_cycles)},
      {"check_timing", set(f, c.check_timing)}};
  const std::map<std::string, Setter> top = {
      {"base", [](const YAML::Node&, const std::string&) {}},
      {"name", set(f, cfg.spec.name)},
      {"source", set(f, cfg.spec.source)},
      {"organisation", [&](const YAML::Node& n, const std::string& s) { apply_map(f, n, s, org); }},
      {"timing", [&](const YAML::Node& n, const std::string& s) { apply_map(f, n, s, timing); }},
      {"memory", [&](const YAML::Node& n, const std::string& s) { apply_map(f, n, s, memory); }},
      {"controller", [&](const YAML::Node& n, const std::string& s) { apply_map(f, n, s, controller); }}};
  apply_map(f, root, "", top);
}

bool pow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

void HbmConfig::validate() const {
  const auto& o = spec.org;
  const auto& t = spec.timing;
  auto need = [](bool ok, const std::string& field, const std::string& what) {
    if (!ok) throw std::invalid_argument("field '" + field + "': " + what);
  };
  need(pow2(o.channels), "organisation.channels", "must be a power of two");
  need(pow2(o.pseudo_channels), "organisation.pseudo_channels", "must be a power of two");
  need(pow2(o.bank_groups), "organisation.bank_groups", "must be a power of two");
  need(pow2(o.banks_per_group), "organisation.banks_per_group", "must be a power of two");
  need(o.banks() <= 64, "organisation.bank_groups", "at most 64 banks per pseudo-channel");
  need(pow2(o.rows), "organisation.rows", "must be a power of two");
  need(pow2(o.columns), "organisation.columns", "must be a power of two");
  need(o.bus_width_bits % 8 == 0 && o.bus_width_bits > 0, "organisation.bus_width_bits", "must be a multiple of 8");
  need(pow2(o.burst_length) && o.burst_length >= 2, "organisation.burst_length", "must be a power of two >= 2");
  need(o.columns >= o.burst_length, "organisation.columns", "must be at least burst_length");
  need(o.data_rate_gbps > 0, "organisation.data_rate_gbps", "must be > 0");
  need(t.tCK_ps > 0, "timing.tCK_ps", "must be > 0");
  need(t.CL > 0 && t.CWL > 0, "timing.CL", "CL and CWL must be > 0");
  need(t.RC >= t.RAS, "timing.RC", "must be >= RAS");
  need(t.CCD_S >= spec.burst_cycles(), "timing.CCD_S", "must be >= burst cycles (BL/2), or bursts would overlap");
  need(t.CCD_L >= t.CCD_S, "timing.CCD_L", "must be >= CCD_S");
  need(t.FAW > 0 && t.REFI > t.RFC, "timing.REFI", "must exceed RFC");
  need(t.REFIsb > 0 && t.RFCsb > 0, "timing.REFIsb", "REFIsb and RFCsb must be > 0");
  need(memory.stacks >= 1 && pow2(memory.stacks), "memory.stacks", "must be a power of two >= 1");
  need(pow2(memory.stack_interleave_bytes) && memory.stack_interleave_bytes >= o.burst_bytes(),
       "memory.stack_interleave_bytes", "must be a power of two >= one burst");
  need(controller.read_queue > 0 && controller.write_queue > 0, "controller.read_queue",
       "queue depths must be > 0");
  need(controller.write_high_watermark <= controller.write_queue && controller.write_high_watermark > 0,
       "controller.write_high_watermark", "must be in 1..write_queue");
  need(controller.write_low_watermark < controller.write_high_watermark, "controller.write_low_watermark",
       "must be below write_high_watermark");
  need(controller.starvation_cycles > 0, "controller.starvation_cycles", "must be > 0");
}

HbmConfig load_hbm_config(const std::string& path) {
  HbmConfig cfg;
  apply_file(path, cfg, 0);
  try {
    cfg.validate();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
  return cfg;
}

const char* to_string(PagePolicy p) { return p == PagePolicy::kOpen ? "open" : "closed"; }
const char* to_string(RefreshMode r) {
  return r == RefreshMode::kAllBank ? "all_bank" : r == RefreshMode::kPerBank ? "per_bank" : "none";
}

}  // namespace mxc
