#include "regress/regression_check.h"

#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace mxc::regress {

namespace {
// Fixed-point, never an exponent ("1.23e+03 %" read badly in the table).
std::string fixed(double v, int decimals) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(decimals) << v;
  return o.str();
}
}  // namespace

std::optional<double> model_error_pct(const TestRecord& r) {
  if (!r.cycles_model || !r.cycles_rtl || *r.cycles_rtl == 0) return std::nullopt;
  return (static_cast<double>(*r.cycles_model) - static_cast<double>(*r.cycles_rtl)) /
         static_cast<double>(*r.cycles_rtl) * 100.0;
}

std::optional<double> sim_speed(const TestRecord& r) {
  if (!r.cycles_rtl || r.wall_seconds <= 0) return std::nullopt;
  return static_cast<double>(*r.cycles_rtl) / r.wall_seconds;
}

std::vector<Regression> find_regressions(const std::vector<TestRecord>& baseline,
                                         const std::vector<TestRecord>& current, const Thresholds& t,
                                         const std::vector<std::string>& not_run) {
  std::map<std::string, const TestRecord*> base;
  for (const auto& b : baseline) base[b.test_id] = &b;
  std::vector<Regression> out;
  for (const auto& c : current) {
    auto it = base.find(c.test_id);
    if (it == base.end()) continue;
    const TestRecord& b = *it->second;
    // Skipped too: a test that stops running (an array size dropped from the build) tests nothing.
    if (b.status == "pass" && (c.status == "fail" || c.status == "error" || c.status == "skipped")) {
      out.push_back({c.test_id, "status", b.status, c.status + (c.message.empty() ? "" : ": " + c.message)});
      continue;  // the numbers of a failed run mean little
    }
    const auto eb = model_error_pct(b), ec = model_error_pct(c);
    if (eb && ec && std::fabs(*ec) > std::fabs(*eb) + t.error_points)
      out.push_back({c.test_id, "error", fixed(*eb, 2) + " %", fixed(*ec, 2) + " %"});
    // The RTL's cycles; a test without RTL (`mxcosim model`) is held to its model's.
    const auto& cb = b.cycles_rtl || c.cycles_rtl ? b.cycles_rtl : b.cycles_model;
    const auto& cc = b.cycles_rtl || c.cycles_rtl ? c.cycles_rtl : c.cycles_model;
    if (cb && cc && static_cast<double>(*cc) > static_cast<double>(*cb) * t.cycles_ratio)
      out.push_back({c.test_id, "cycles", std::to_string(*cb), std::to_string(*cc)});
    const auto sb = sim_speed(b), sc = sim_speed(c);
    const bool long_enough = b.wall_seconds >= t.speed_min_seconds && c.wall_seconds >= t.speed_min_seconds;
    if (sb && sc && long_enough && *sc < *sb * t.speed_ratio)
      out.push_back({c.test_id, "speed", fixed(*sb, 0) + " cycles/s", fixed(*sc, 0) + " cycles/s"});
  }
  for (const auto& id : not_run)
    if (const auto it = base.find(id); it != base.end() && it->second->status == "pass")
      out.push_back({id, "status", "pass", "not run"});
  return out;
}

}  // namespace mxc::regress
