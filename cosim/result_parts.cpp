#include "cosim/result_parts.h"

#include <algorithm>
#include <stdexcept>

namespace mxc {

namespace {

std::uint64_t counter(const std::vector<std::pair<std::string, std::uint64_t>>& perf, const std::string& name) {
  for (const auto& [n, v] : perf)
    if (n == name) return v;
  return 0;
}

}  // namespace

namespace {

void merge(const std::vector<nlohmann::json>& parts, const SystemConfig& cfg, const Workload& work, bool shadow,
           SystemRunResult& result, bool every_chip) {
  using json = nlohmann::json;
  std::vector<const json*> chips;
  for (const json& p : parts) {
    result.ici_bytes += p.at("ici_bytes").get<std::uint64_t>();
    if (result.error.empty()) result.error = p.at("error").get<std::string>();
    for (const json& c : p.at("chips")) chips.push_back(&c);
  }
  std::sort(chips.begin(), chips.end(), [](const json* a, const json* b) {
    return a->at("chip").get<std::uint32_t>() < b->at("chip").get<std::uint32_t>();
  });
  // Another process's part is a peer's word: each chip once, of this system, with its tiles.
  for (std::size_t i = 0; i < chips.size(); ++i) {
    const auto chip = chips[i]->at("chip").get<std::uint32_t>();
    if (chip >= cfg.chips)
      throw std::runtime_error("a part for chip " + std::to_string(chip) + " of a system of " +
                               std::to_string(cfg.chips) + " chips");
    if (i > 0 && chips[i - 1]->at("chip").get<std::uint32_t>() == chip)
      throw std::runtime_error("chip " + std::to_string(chip) + " in two parts");
    const std::size_t tiles = chips[i]->at("tiles").size();
    if (tiles != work.programs.at(chip).size())
      throw std::runtime_error("chip " + std::to_string(chip) + " with " + std::to_string(tiles) + " tiles, not " +
                               std::to_string(work.programs.at(chip).size()));
  }
  if (every_chip && chips.size() != cfg.chips)
    throw std::runtime_error("results of " + std::to_string(chips.size()) + " chips, the system has " +
                             std::to_string(cfg.chips));
  // A stopped run's reason (hang, protocol violation) comes first; else the first chip's tile
  // that raised its error output, in chip order, whichever process ran it.
  for (const json* c : chips)
    if (result.error.empty()) result.error = c->at("hardware_error").get<std::string>();
  const auto take = [&result](const json& list) {
    for (const json& m : list) {
      result.mismatches.push_back({m.at(0).get<Time>(), m.at(1).get<std::string>(), m.at(2).get<std::string>(),
                                   m.at(3).get<std::string>(), m.at(4).get<std::string>(), m.at(5).get<std::string>()});
    }
  };
  // Findings in the order one process records them: each checker over all chips in turn.
  for (const json& p : parts) {
    result.mismatch_count += p.at("error_mismatches").size();
    take(p.at("error_mismatches"));
  }
  std::uint64_t active = 0, tile_cycles = 0;
  for (const json* c : chips) {
    const auto chip = c->at("chip").get<std::uint32_t>();
    result.hbm_read_bytes += c->at("read").get<std::uint64_t>();
    result.hbm_write_bytes += c->at("written").get<std::uint64_t>();
    result.hbm_requests_beyond_capacity += c->at("hbm_beyond_capacity").get<std::uint64_t>();
    std::uint32_t t = 0;
    for (const json& j : c->at("tiles")) {
      TileReport r;
      r.name = j.at("name").get<std::string>();
      r.kind = j.at("kind").get<std::string>() == "rtl" ? TileKind::kRtl : TileKind::kModel;
      r.cycles = j.at("cycles").get<std::uint64_t>();
      r.model_cycles = j.at("model_cycles").get<std::uint64_t>();
      r.instructions = work.programs[chip][t++].size();
      for (const json& kv : j.at("perf"))
        r.perf.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::uint64_t>());
      result.rtl_cycles = std::max(result.rtl_cycles, r.cycles);
      if (shadow) result.model_cycles = std::max(result.model_cycles.value_or(0), r.model_cycles);
      active += counter(r.perf, "array_active");
      tile_cycles += r.cycles;
      result.tiles.push_back(std::move(r));
    }
    result.mismatch_count += c->at("hang").at("count").get<std::uint64_t>();
    take(c->at("hang").at("list"));
  }
  result.utilization = tile_cycles ? static_cast<double>(active) / static_cast<double>(tile_cycles) : 0.0;
  result.bandwidth_gbps = result.sim_time_ps
                              ? static_cast<double>(result.hbm_read_bytes + result.hbm_write_bytes) /
                                    (static_cast<double>(result.sim_time_ps) / 1000.0)
                              : 0.0;
  for (const json* c : chips) {
    result.mismatch_count += c->at("hbm").at("count").get<std::uint64_t>();
    take(c->at("hbm").at("list"));
  }
  for (const json* c : chips) {
    result.handshakes += c->at("handshake").at("checked").get<std::uint64_t>();
    result.mismatch_count += c->at("handshake").at("count").get<std::uint64_t>();
    take(c->at("handshake").at("list"));
  }
  if (shadow && result.error.empty()) {
    result.timing.compared = true;
    std::uint64_t abs_sum = 0;
    for (const json* c : chips) {
      const json& tm = c->at("timing");
      abs_sum += tm.at("abs_sum").get<std::uint64_t>();
      result.timing.max_abs_instr_error =
          std::max(result.timing.max_abs_instr_error, tm.at("max_abs").get<std::int64_t>());
      for (const json& e : tm.at("histogram")) ++result.timing.error_histogram[e.get<std::int64_t>()];
      result.timing.instructions += tm.at("instructions").get<std::uint64_t>();
      result.timing.memory_requests += tm.at("memory_requests").get<std::uint64_t>();
      result.timing.mismatches += tm.at("count").get<std::uint64_t>();
      result.mismatch_count += tm.at("count").get<std::uint64_t>();
      take(tm.at("list"));
    }
    if (result.timing.instructions)
      result.timing.mean_abs_instr_error =
          static_cast<double>(abs_sum) / static_cast<double>(result.timing.instructions);
  }
  if (result.error.empty()) {
    // One scoreboard over all chips keeps its earliest Checker::max_recorded() findings (as
    // Checker::report does): each chip's part holds its own earliest, and these are the earliest
    // of those, in time order, chips in turn on equal times.
    const std::size_t from = result.mismatches.size();
    for (const json* c : chips) {
      const json& d = c->at("data");
      result.elements_checked += d.at("checked").get<std::uint64_t>();
      result.memory_bytes_checked += d.at("memory_bytes").get<std::uint64_t>();
      result.mismatch_count += d.at("count").get<std::uint64_t>();
      take(d.at("list"));
    }
    const auto data = result.mismatches.begin() + static_cast<std::ptrdiff_t>(from);
    std::stable_sort(data, result.mismatches.end(),
                     [](const Mismatch& a, const Mismatch& b) { return a.time < b.time; });
    if (result.mismatches.end() - data > static_cast<std::ptrdiff_t>(Checker::max_recorded()))
      result.mismatches.erase(data + static_cast<std::ptrdiff_t>(Checker::max_recorded()), result.mismatches.end());
  }
  std::stable_sort(result.mismatches.begin(), result.mismatches.end(),
                   [](const Mismatch& a, const Mismatch& b) { return a.time < b.time; });
  result.passed = result.error.empty() && result.mismatch_count == 0;
}

}  // namespace

// Another client's part comes by way of the server, unchecked there.
constexpr const char* kPartsWrong = "the run's results in parts do not add up";

nlohmann::json parse_part(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw std::runtime_error(std::string(kPartsWrong) +
                             ": a part (another client's, by way of the server) is not JSON");
  return j;
}

void merge_parts(const std::vector<nlohmann::json>& parts, const SystemConfig& cfg, const Workload& work,
                 bool shadow, SystemRunResult& result, bool every_chip) {
  // Whatever does not add up in the parts: a missing or mistyped field, a chip out of range or
  // twice, a chip's tiles.
  try {
    merge(parts, cfg, work, shadow, result, every_chip);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(kPartsWrong) + " (" + std::to_string(parts.size()) +
                             " parts; another client's comes by way of the server): " + e.what());
  }
}


}  // namespace mxc
