#include "models/ici/ici_config_loader.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace mxc::ici {

namespace {

class Reader {
 public:
  explicit Reader(std::string origin) : m_origin(std::move(origin)) {}

  [[noreturn]] void fail(const YAML::Node& n, const std::string& field, const std::string& why) const {
    const int line = n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
    throw std::runtime_error(m_origin + ":" + std::to_string(line) + ": field '" + field + "': " + why);
  }

  /// Checks that `map` is a mapping with only `keys`.
  void keys(const YAML::Node& map, const std::string& field, const std::set<std::string>& allowed) const {
    if (!map.IsMap()) fail(map, field, "expected a mapping");
    for (const auto& kv : map) {
      const std::string k = kv.first.as<std::string>();
      if (!allowed.count(k)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first, field.empty() ? k : field + "." + k, "unknown key (expected one of: " + list + ")");
      }
    }
  }

  double number(const YAML::Node& n, const std::string& field, double lo, double hi) const {
    double v;
    try {
      v = n.as<double>();
    } catch (const YAML::Exception&) {
      fail(n, field, "expected a number");
    }
    if (!std::isfinite(v) || v < lo || v > hi)
      fail(n, field, "must be in [" + fmt(lo) + ", " + fmt(hi) + "], got " + n.as<std::string>());
    return v;
  }

  std::uint32_t uint(const YAML::Node& n, const std::string& field, std::uint32_t lo, std::uint32_t hi) const {
    const double v = number(n, field, lo, hi);
    if (v != std::floor(v)) fail(n, field, "expected a whole number");
    return static_cast<std::uint32_t>(v);
  }

  Time ns(const YAML::Node& n, const std::string& field) const {
    return static_cast<Time>(std::llround(number(n, field, 0, 1e9) * 1000.0));
  }

  bool boolean(const YAML::Node& n, const std::string& field) const {
    try {
      return n.as<bool>();
    } catch (const YAML::Exception&) {
      fail(n, field, "expected true or false");
    }
  }

  std::string string(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "expected a string");
    return n.as<std::string>();
  }

 private:
  static std::string fmt(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  }
  std::string m_origin;
};

}  // namespace

IciConfig parse_ici_config(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw std::runtime_error(origin + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
  Reader r(origin);
  if (!root.IsMap()) r.fail(root, "ici", "expected a mapping with an 'ici' key");
  r.keys(root, "", {"ici"});
  const YAML::Node ici = root["ici"];
  r.keys(ici, "ici", {"name", "model", "topology", "link", "router", "packet"});
  IciConfig c;
  if (ici["name"]) c.name = r.string(ici["name"], "ici.name");
  if (ici["model"]) {
    c.model = r.string(ici["model"], "ici.model");
    if (c.model != "torus" && c.model != "analytic") r.fail(ici["model"], "ici.model", "must be torus or analytic");
  }
  const YAML::Node topo = ici["topology"];
  if (!topo) r.fail(ici, "ici.topology", "is required");
  r.keys(topo, "ici.topology", {"dims", "wrap"});
  const YAML::Node dims = topo["dims"];
  if (!dims || !dims.IsSequence() || dims.size() == 0)
    r.fail(dims ? dims : topo, "ici.topology.dims", "expected a list of dimension sizes, e.g. [4, 4, 4]");
  c.dims.clear();
  std::uint64_t chips = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    c.dims.push_back(r.uint(dims[i], "ici.topology.dims[" + std::to_string(i) + "]", 1, 1u << 16));
    chips *= c.dims.back();
    if (chips > (1u << 24)) r.fail(dims[i], "ici.topology.dims", "more than 16M chips");
  }
  if (const YAML::Node w = topo["wrap"]) {
    c.wrap.clear();
    if (w.IsSequence()) {
      if (w.size() != c.dims.size()) r.fail(w, "ici.topology.wrap", "needs one entry per dimension");
      for (std::size_t i = 0; i < w.size(); ++i)
        c.wrap.push_back(r.boolean(w[i], "ici.topology.wrap[" + std::to_string(i) + "]"));
    } else {
      c.wrap.push_back(r.boolean(w, "ici.topology.wrap"));
    }
  }
  if (const YAML::Node l = ici["link"]) {
    r.keys(l, "ici.link", {"bandwidth_gbps", "latency_ns"});
    if (l["bandwidth_gbps"]) c.link_gbps = r.number(l["bandwidth_gbps"], "ici.link.bandwidth_gbps", 1e-3, 1e6);
    if (l["latency_ns"]) c.link_latency_ps = r.ns(l["latency_ns"], "ici.link.latency_ns");
  }
  if (const YAML::Node rt = ici["router"]) {
    r.keys(rt, "ici.router", {"latency_ns", "vcs_per_class", "buffer_bytes_per_vc", "injection_queue", "datelines"});
    if (rt["latency_ns"]) c.router_latency_ps = r.ns(rt["latency_ns"], "ici.router.latency_ns");
    if (rt["vcs_per_class"]) c.vcs_per_class = r.uint(rt["vcs_per_class"], "ici.router.vcs_per_class", 1, 64);
    if (rt["buffer_bytes_per_vc"])
      c.buffer_bytes_per_vc = r.uint(rt["buffer_bytes_per_vc"], "ici.router.buffer_bytes_per_vc", 1, 1u << 30);
    if (rt["injection_queue"])
      c.injection_queue = r.uint(rt["injection_queue"], "ici.router.injection_queue", 1, 1u << 20);
    if (rt["datelines"]) c.datelines = r.boolean(rt["datelines"], "ici.router.datelines");
  }
  if (const YAML::Node p = ici["packet"]) {
    r.keys(p, "ici.packet", {"max_payload_bytes", "header_bytes", "flit_bytes"});
    if (p["max_payload_bytes"])
      c.max_payload_bytes = r.uint(p["max_payload_bytes"], "ici.packet.max_payload_bytes", 1, 1u << 20);
    if (p["header_bytes"]) c.header_bytes = r.uint(p["header_bytes"], "ici.packet.header_bytes", 0, 1u << 16);
    if (p["flit_bytes"]) c.flit_bytes = r.uint(p["flit_bytes"], "ici.packet.flit_bytes", 1, 1u << 16);
  }
  try {
    c.validate();
  } catch (const std::invalid_argument& e) {
    r.fail(ici, "ici", e.what());
  }
  return c;
}

IciConfig load_ici_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open ICI config file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_ici_config(ss.str(), path);
}

}  // namespace mxc::ici
