#include "regress/result_reader.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace mxc::regress {

namespace {

using nlohmann::json;

// Walks a dotted path; null when any step is missing or not an object.
const json* find(const json& root, std::initializer_list<const char*> path) {
  const json* j = &root;
  for (const char* key : path) {
    if (!j->is_object()) return nullptr;
    auto it = j->find(key);
    if (it == j->end()) return nullptr;
    j = &*it;
  }
  return j;
}

std::optional<std::int64_t> as_int(const json& root, std::initializer_list<const char*> path) {
  const json* j = find(root, path);
  if (!j) return std::nullopt;
  if (j->is_number_integer()) return j->get<std::int64_t>();
  if (j->is_number_unsigned()) {
    const auto u = j->get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(u);
  }
  return std::nullopt;
}

std::optional<double> as_double(const json& root, std::initializer_list<const char*> path) {
  const json* j = find(root, path);
  if (!j || !j->is_number()) return std::nullopt;
  return j->get<double>();
}

std::optional<std::string> as_string(const json& root, std::initializer_list<const char*> path) {
  const json* j = find(root, path);
  if (!j || !j->is_string()) return std::nullopt;
  return j->get<std::string>();
}

}  // namespace

ResultsFile read_results_json(const std::string& text, TestRecord& rec) {
  ResultsFile out;
  rec.results_json = text;
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    out.parse_error = "results file is not a JSON object";
    return out;
  }
  out.parsed = true;
  out.status = as_string(root, {"status"});
  out.error = as_string(root, {"error"});
  if (out.error && out.error->empty()) out.error.reset();
  rec.cycles_rtl = as_int(root, {"cycles", "rtl"});
  // A run that stopped before its end (`error`: a hang, a tile's error
  // output) has cycle counts of where it stopped: its model error would be
  // noise in the histogram, the trend and the regression check, and
  // results.json leaves its cycle_error_percent out for the same reason.
  // (The whole file stays in results_json.)
  if (!out.error) rec.cycles_model = as_int(root, {"cycles", "model"});
  // `mxcosim model` has no RTL: its plain `cycles` is the performance model's.
  if (!out.error && !rec.cycles_rtl && !rec.cycles_model) rec.cycles_model = as_int(root, {"cycles"});
  rec.instructions = as_int(root, {"instructions"});
  rec.mismatch_count = out.mismatch_count = as_int(root, {"mismatch_count"});
  rec.sim_time_ns = as_double(root, {"sim_time_ns"});
  // Spelled either way by producers; the performance model's names first.
  rec.utilisation = as_double(root, {"utilisation"});
  if (!rec.utilisation) rec.utilisation = as_double(root, {"utilization"});
  if (!rec.utilisation) rec.utilisation = as_double(root, {"stats", "utilisation"});
  rec.bandwidth_gbps = as_double(root, {"bandwidth_gbps"});
  if (!rec.bandwidth_gbps) rec.bandwidth_gbps = as_double(root, {"bandwidth", "gbps"});
  if (!rec.bandwidth_gbps) rec.bandwidth_gbps = as_double(root, {"stats", "bandwidth_gbps"});
  // `mxcosim model` measures its memory traffic as achieved_gbps; `mxcosim hbm` reads and writes apart.
  if (!rec.bandwidth_gbps) rec.bandwidth_gbps = as_double(root, {"achieved_gbps"});
  if (!rec.bandwidth_gbps) {
    const auto rd = as_double(root, {"read_bandwidth_gbps"}), wr = as_double(root, {"write_bandwidth_gbps"});
    if (rd || wr) rec.bandwidth_gbps = rd.value_or(0) + wr.value_or(0);
  }
  if (const json* list = find(root, {"mismatches"}); list && list->is_array() && !list->empty()) {
    const json& m = (*list)[0];
    std::ostringstream s;
    auto field = [&](const char* k) { return as_string(m, {k}).value_or("?"); };
    s << field("where") << " " << field("id") << " " << field("field") << ": expected " << field("expected")
      << ", got " << field("actual");
    if (auto t = as_int(m, {"time_ps"})) s << " at " << *t << " ps";
    out.first_mismatch = s.str();
  }
  return out;
}

ResultsFile read_results_file(const std::string& path, TestRecord& rec) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream text;
  text << in.rdbuf();
  return read_results_json(text.str(), rec);
}

}  // namespace mxc::regress
