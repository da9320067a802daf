#include "models/ici/ici_config_loader.h"

#include <stdexcept>

#include "models/core/config_field_error.h"
#include "models/core/yaml_reader.h"

namespace mxc::ici {

IciConfig parse_ici_config(const std::string& text, const std::string& origin) {
  const YamlReader r(origin);
  const YAML::Node root = r.load(text);
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
    if (l["bandwidth_gbps"]) c.link_gbps = r.number(l["bandwidth_gbps"], "ici.link.bandwidth_gbps", kMinLinkGbps, kMaxLinkGbps);
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
  } catch (const ConfigFieldError& e) {
    r.fail_at_field(root, "ici." + e.field, e.why);  // at the field's line, or its nearest ancestor's
  }
  return c;
}

IciConfig load_ici_config(const std::string& path) {
  return parse_ici_config(read_config_file(path, "ICI config file"), path);
}

}  // namespace mxc::ici
