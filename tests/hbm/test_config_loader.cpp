// Presets load with their cited figures; bad files give file, line, field.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "models/hbm/config_loader.h"

using namespace mxc::hbm;

namespace {
std::string preset_text(const std::string& name) {
  std::ifstream in(std::string(MXCOSIM_SOURCE_DIR) + "/configs/hbm/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}
}  // namespace

TEST_CASE("presets give the peak bandwidths of the standards") {
  // Peak = 1024 pins x rate / 8 per stack.
  const MemoryConfig h2 = parse_memory_config(preset_text("hbm2.yaml"), "hbm2.yaml");
  CHECK(h2.device.peak_gbps() == Approx(256.0));
  CHECK(h2.device.t.burst_cycles == 2);
  CHECK(h2.device.t.RFC == 260);
  CHECK(h2.device.t.REFI == 3900);
  CHECK(h2.device.org.stack_bytes() == 8ull << 30);
  CHECK(parse_memory_config(preset_text("hbm2e_3200.yaml"), "x").device.peak_gbps() == Approx(409.6));
  const MemoryConfig e36 = parse_memory_config(preset_text("hbm2e_3600.yaml"), "x");
  CHECK(e36.device.peak_gbps() == Approx(460.8));
  CHECK(e36.device.t.RCDRD == 26);  // ceil(14 ns / 0.556 ns)
  CHECK(e36.device.t.REFI == 7014);  // floor(3900 ns / 0.556 ns): an interval rounds down
  const MemoryConfig h3 = parse_memory_config(preset_text("hbm3.yaml"), "x");
  CHECK(h3.device.peak_gbps() == Approx(819.2));
  CHECK(h3.device.org.pcs() == 32);
  CHECK(h3.device.t.burst_cycles == 2);  // BL8 at 4 beats per clock
  // tRREFD is 8 ns on every preset, in cycles of its clock.
  CHECK(h2.device.t.RREFD == 8);
  CHECK(e36.device.t.RREFD == 15);  // ceil(8 ns / 0.556 ns)
  CHECK(h3.device.t.RREFD == 13);   // ceil(8 ns / 0.625 ns)
  // A device that leaves it out gets the same 8 ns.
  const std::string no_rrefd = replaced(preset_text("hbm3.yaml"), "RREFD: 8ns", "");
  CHECK(parse_memory_config(no_rrefd, "x").device.t.RREFD == 13);
}

TEST_CASE("config errors name file, line and field") {
  const std::string base = preset_text("hbm2.yaml");
  CHECK_THROWS_WITH(parse_memory_config(replaced(base, "read_queue: 32", "read_queue: -3"), "f.yaml"),
                    Catch::Matches("f\\.yaml:[0-9]+: controller\\.read_queue: expected a positive integer.*"));
  CHECK_THROWS_WITH(parse_memory_config(replaced(base, "    CL: 14\n", "    CL: fast\n"), "f.yaml"),
                    Catch::Contains("device.timing.CL"));
  CHECK_THROWS_WITH(parse_memory_config(replaced(base, "    CL: 14\n", ""), "f.yaml"),
                    Catch::Contains("device.timing.CL: missing"));
  CHECK_THROWS_WITH(parse_memory_config(replaced(base, "tCK_ps: 1000", "tCK_ps: 15"), "f.yaml"),
                    Catch::Contains("device.timing.tCK_ps: must be at least 16"));
  CHECK_THROWS_WITH(parse_memory_config(replaced(base, "page_policy: open", "page_policy: ajar"), "f.yaml"),
                    Catch::Contains("controller.page_policy"));
  CHECK_THROWS_WITH(parse_memory_config(replaced(base, "stacks: 1", "stackz: 1"), "f.yaml"),
                    Catch::Contains("memory.stackz: unknown field"));
  CHECK_THROWS_WITH(parse_memory_config(replaced(base, "\"ro-ba-co:4-ch-pc-bg-co:1\"", "\"ro-ba-co-ch-pc\""), "f.yaml"),
                    Catch::Contains("controller.address_mapping"));
  CHECK_THROWS_WITH(parse_memory_config(replaced(base, "rows: 32768", "rows: [1, 2]"), "f.yaml"),
                    Catch::Contains("device.organisation.rows"));
  CHECK_THROWS_WITH(parse_memory_config("device: {\n  name: x\n", "f.yaml"), Catch::Contains("f.yaml:"));
  CHECK_THROWS_WITH(load_memory_config("/nonexistent.yaml"), Catch::Contains("/nonexistent.yaml: cannot open"));
  // The line number points at the offending entry.
  const std::string bad = replaced(base, "write_queue: 32", "write_queue: 0");
  std::size_t line = 1;
  for (char c : bad.substr(0, bad.find("write_queue: 0"))) line += c == '\n';
  CHECK_THROWS_WITH(parse_memory_config(bad, "f.yaml"),
                    Catch::Contains("f.yaml:" + std::to_string(line) + ": controller.write_queue"));
}

TEST_CASE("a memory config built in code is checked like a loaded one") {
  MemoryConfig cfg = parse_memory_config(preset_text("hbm2.yaml"), "hbm2.yaml");
  CHECK_NOTHROW(validate(cfg));
  cfg.device.t.tCK_ps = 15;  // cycle counts would no longer fit the controller's packed keys
  CHECK_THROWS_WITH(validate(cfg), Catch::Contains("tCK >= 16 ps"));
  cfg.device.t.tCK_ps = 16;
  CHECK_NOTHROW(validate(cfg));
}

TEST_CASE("a memory config may reference a device preset file") {
  const std::string dir = std::string(MXCOSIM_SOURCE_DIR) + "/configs/hbm/";
  const MemoryConfig c = parse_memory_config("device: hbm3.yaml\nmemory:\n  stacks: 2\n", dir + "system.yaml");
  CHECK(c.device.name == "HBM3-6400");
  CHECK(c.stacks == 2);
  CHECK_THROWS_WITH(parse_memory_config("device: nope.yaml\n", dir + "system.yaml"),
                    Catch::Contains("system.yaml:1: device: cannot open preset"));
}
