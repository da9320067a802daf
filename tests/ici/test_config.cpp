// The YAML loader: presets load, and bad input names file, line and field.
#include <catch2/catch.hpp>

#include "models/ici/ici_config_loader.h"

using namespace mxc::ici;

namespace {
std::string error_of(const std::string& yaml) {
  try {
    parse_ici_config(yaml, "x.yaml");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("the presets load with the published link figures") {
  const IciConfig v4 = load_ici_config(std::string(MXCOSIM_SOURCE_DIR) + "/configs/ici/torus4x4x4.yaml");
  CHECK(v4.dims == std::vector<std::uint32_t>{4, 4, 4});
  CHECK(v4.link_gbps == 45.0);
  CHECK(v4.link_latency_ps + v4.router_latency_ps == 1'000'000);
  const IciConfig v5e = load_ici_config(std::string(MXCOSIM_SOURCE_DIR) + "/configs/ici/torus16x16.yaml");
  CHECK(v5e.dims == std::vector<std::uint32_t>{16, 16});
  const IciConfig pod = load_ici_config(std::string(MXCOSIM_SOURCE_DIR) + "/configs/ici/tpu4096_analytic.yaml");
  CHECK(pod.model == "analytic");
  load_ici_config(std::string(MXCOSIM_SOURCE_DIR) + "/configs/ici/torus4x4.yaml");
}

TEST_CASE("config errors name the file, the line and the field") {
  CHECK(error_of("ici:\n  topology:\n    dims: [4, 4]\n  link:\n    bandwidth_gbps: fast\n") ==
        "x.yaml:5: field 'ici.link.bandwidth_gbps': expected a number");
  CHECK(error_of("ici:\n  topology:\n    dims: [4, 0]\n").rfind("x.yaml:3: field 'ici.topology.dims[1]'", 0) == 0);
  CHECK(error_of("ici:\n  topology:\n    dims: [4]\n  router:\n    latncy_ns: 5\n")
            .rfind("x.yaml:5: field 'ici.router.latncy_ns': unknown key", 0) == 0);
  CHECK(error_of("ici:\n  link: {}\n").find("field 'ici.topology': is required") != std::string::npos);
  // A rule checked after loading is said at its field's line (it was the line of "ici:"), or
  // at its nearest ancestor's key when the file leaves the field to its default ("ici:", not
  // "topology:", the first line under it).
  CHECK(error_of("ici:\n  topology:\n    dims: [4]\n  router:\n    buffer_bytes_per_vc: 64\n") ==
        "x.yaml:5: field 'ici.router.buffer_bytes_per_vc': must hold at least one maximum-size packet (4160 bytes)");
  CHECK(error_of("ici:\n  topology:\n    dims: [4]\n  packet:\n    max_payload_bytes: 200000\n") ==
        "x.yaml:1: field 'ici.router.buffer_bytes_per_vc': must hold at least one maximum-size packet (200064 "
        "bytes)");
  CHECK(error_of("ici: [").rfind("x.yaml:", 0) == 0);
  // A fabric of millions of chips (a typo) ran for minutes on gigabytes; 65536 chips is the most.
  CHECK(error_of("ici:\n  topology:\n    dims: [4096, 4096]\n") ==
        "x.yaml:3: field 'ici.topology.dims': more than 65536 chips in all (the product of the sizes)");
  CHECK_NOTHROW(parse_ici_config("ici:\n  topology:\n    dims: [256, 256]\n", "x.yaml"));
  // A key given twice would otherwise keep its first value silently.
  CHECK(error_of("ici:\n  topology:\n    dims: [4]\n    dims: [8]\n") ==
        "x.yaml:4: field 'ici.topology.dims': duplicate key (first given on line 3)");
  CHECK_THROWS_WITH(load_ici_config("/nonexistent.yaml"), Catch::Contains("/nonexistent.yaml"));
  // A config built in code has the file's bandwidth limits: below 5e-10 GB/s
  // a link would move no whole byte per second and serialisation divided by zero.
  IciConfig c;
  c.link_gbps = 1e-12;
  CHECK_THROWS_WITH(c.validate(), "field 'link.bandwidth_gbps': must be in [0.001, 1e6]");
  c.link_gbps = kMinLinkGbps;
  c.validate();
  CHECK(c.link_bytes_per_s() == 1'000'000);
}
