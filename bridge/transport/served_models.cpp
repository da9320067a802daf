#include "bridge/transport/served_models.h"

#include <stdexcept>

#include "models/core/ideal_memory.h"
#include "models/core/yaml_reader.h"
#include "models/hbm/config_loader.h"
#include "models/hbm/hbm_model.h"
#include "models/ici/analytic_fabric.h"
#include "models/ici/fabric_factory.h"
#include "models/ici/ici_config_loader.h"
#include "models/ici/torus_fabric.h"

namespace mxc::transport {

namespace {

void fnv(std::uint64_t& h, const std::string& s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  h ^= 0xff;  // field separator, so "ab"+"c" differs from "a"+"bc"
  h *= 0x100000001b3ull;
}

}  // namespace

ServedParts parse_served_parts(const std::string& text, const std::string& option) {
  if (text == "all") return {true, true};
  if (text == "memories") return {true, false};
  if (text == "fabric") return {false, true};
  throw std::invalid_argument(option + ": '" + text + "' is not all, memories or fabric");
}

std::string to_string(const ServedParts& parts) {
  if (parts.memories && parts.fabric) return "all";
  if (parts.memories) return "memories";
  return parts.fabric ? "fabric" : "nothing";
}

std::uint64_t config_hash(const ServedSystem& sys) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  fnv(h, "chips=" + std::to_string(sys.chips));
  fnv(h, "tiles_per_chip=" + std::to_string(sys.tiles_per_chip));
  fnv(h, "memory=" + sys.memory);
  if (sys.memory == "hbm") {
    fnv(h, read_config_file(sys.hbm_config, "memory config (memory.config)"));
    // Whether the checker runs changes what the served memory reports: both ends must agree.
    fnv(h, std::string("hbm_timing_check=") + (sys.hbm_timing_check ? "true" : "false"));
  } else {
    fnv(h, "latency_ps=" + std::to_string(sys.ideal_latency_ps));
    fnv(h, "outstanding=" + std::to_string(sys.ideal_outstanding));
  }
  if (sys.chips > 1) fnv(h, read_config_file(sys.ici_config, "fabric config (fabric.config)"));
  return h;
}

std::string describe(const ServedSystem& sys) {
  std::string s = std::to_string(sys.chips) + (sys.chips == 1 ? " chip" : " chips") + " x " +
                  std::to_string(sys.tiles_per_chip) + (sys.tiles_per_chip == 1 ? " tile, " : " tiles, ");
  if (sys.memory == "hbm")
    s += "HBM memory of preset " + sys.hbm_config + " (its contents), timing checker " +
         (sys.hbm_timing_check ? "on" : "off");
  else s += sys.memory + " memory of " + std::to_string(sys.ideal_latency_ps) + " ps and " +
            std::to_string(sys.ideal_outstanding) + " requests in flight";
  if (sys.chips > 1) s += ", fabric " + sys.ici_config + " (its contents)";
  return s;
}

std::unique_ptr<MemoryTarget> make_served_memory(const ServedSystem& sys, std::uint32_t /*chip*/,
                                                 const std::string& name) {
  if (sys.memory == "hbm") {
    hbm::MemoryConfig cfg = hbm::load_memory_config(sys.hbm_config);
    cfg.check_timing = sys.hbm_timing_check;  // the system decides, as in one process (ChipSet)
    return std::make_unique<hbm::HbmModel>(name, cfg);
  }
  if (sys.memory == "ideal") return std::make_unique<IdealMemory>(name, sys.ideal_latency_ps, sys.ideal_outstanding);
  throw std::invalid_argument("served system: unknown memory kind '" + sys.memory + "' (ideal or hbm)");
}

std::optional<FixedLatency> fixed_latency_contract(const ServedSystem& sys) {
  if (sys.memory != "ideal") return std::nullopt;
  return FixedLatency{sys.ideal_latency_ps, sys.ideal_outstanding};
}

std::unique_ptr<Fabric> make_served_fabric(const ServedSystem& sys) {
  if (sys.chips <= 1) return nullptr;
  return ici::make_fabric(ici::load_ici_config(sys.ici_config));
}

Time fabric_lookahead(const ServedSystem& sys) {
  if (sys.chips <= 1) return kNever;
  return ici::load_ici_config(sys.ici_config).link_latency_ps;
}

std::unique_ptr<Fabric> copy_fabric(const Fabric& fabric) {
  std::unique_ptr<Fabric> copy;
  if (const auto* t = dynamic_cast<const ici::TorusFabric*>(&fabric)) copy = std::make_unique<ici::TorusFabric>(*t);
  if (const auto* a = dynamic_cast<const ici::AnalyticFabric*>(&fabric)) copy = std::make_unique<ici::AnalyticFabric>(*a);
  if (copy) copy->set_delivery(nullptr);
  return copy;
}

void finish_served_memory(MemoryTarget& mem, Time now) {
  if (auto* h = dynamic_cast<hbm::HbmModel*>(&mem)) h->finish(now);
}

FinishMsg finish_and_report(MemoryTarget& mem, std::uint32_t chip, Time now) {
  FinishMsg f;
  f.chip = chip;
  f.time = now;
  try {
    finish_served_memory(mem, now);
  } catch (const std::logic_error& e) {
    f.error = e.what();  // a timing violation: the client fails its run with it, as one process does
  }
  if (const auto* h = dynamic_cast<const hbm::HbmModel*>(&mem)) {
    f.beyond_capacity = h->requests_beyond_capacity();
    f.timing_checked = h->checker() != nullptr;
    if (h->checker()) f.violations = h->checker()->violations();
  }
  return f;
}

}  // namespace mxc::transport
