// System configurations and whole-system runs: chips x tiles on shared
// memories and a fabric, config errors that name file, line and field, and
// byte-identical results for the same seed.
#include <sys/stat.h>

#include <atomic>
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include "bridge/rtl_tile.h"
#include "cosim/chip_set.h"
#include "cosim/results_json.h"
#include "cosim/system_config.h"
#include "cosim/system_run.h"
#include "cosim/workload.h"
#include "models/mxu/functional_tile.h"
#include "tests/temp_dir.h"

using namespace mxc;

namespace {

const std::string kConfigs = std::string(MXCOSIM_SOURCE_DIR) + "/configs";

SystemConfig parse(const std::string& text) { return parse_system_config(text, "test.yaml", kConfigs); }

// A run of a shipped config with a GEMM, random backpressure and, if not 0, a watchdog.
SystemRunOptions gemm_run(const std::string& config, GemmShape shape, double backpressure, std::uint64_t watchdog) {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/" + config);
  o.system.backpressure = backpressure;
  if (watchdog) o.system.watchdog_cycles = watchdog;
  o.workload.shape = shape;
  return o;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("system config: a full file sets every field and resolves paths beside it") {
  const SystemConfig c = parse(R"(system:
  chips: 2
  tiles_per_chip: 2
  tile: {rows: 8, cols: 4, clock_mhz: 940, kinds: [rtl, model]}
  memory: {kind: hbm, config: hbm/hbm2.yaml}
  fabric: {config: ici/ring4.yaml}
  checks: {compare_model: true, tolerance_cycles: 3, tolerance_percent: 1.5, backpressure: 0.25}
)");
  CHECK(c.chips == 2);
  CHECK(c.rows == 8);
  CHECK(c.cols == 4);
  CHECK(c.tile_mhz == 940.0);
  CHECK(c.tile_kinds == std::vector<TileKind>{TileKind::kRtl, TileKind::kModel});
  CHECK(c.memory == "hbm");
  CHECK(c.hbm_config == kConfigs + "/hbm/hbm2.yaml");
  CHECK(c.ici_config == kConfigs + "/ici/ring4.yaml");
  CHECK(c.compare_model);
  CHECK(c.tolerance_cycles == 3);
  CHECK(c.backpressure == 0.25);
}

TEST_CASE("system config errors name the file, the line and the field") {
  CHECK_THROWS_WITH(parse("system:\n  chips: 1\n  chips: 2\n"),
                    Catch::Contains("test.yaml:3") && Catch::Contains("system.chips") &&
                        Catch::Contains("duplicate key (first given on line 2)"));
  CHECK_THROWS_WITH(parse("system:\n  chips: 1\n  tile:\n    rowz: 4\n"),
                    Catch::Contains("test.yaml:4") && Catch::Contains("system.tile.rowz") &&
                        Catch::Contains("unknown key"));
  CHECK_THROWS_WITH(parse("system:\n  tile:\n    kind: verilog\n"),
                    Catch::Contains("test.yaml:3") && Catch::Contains("system.tile.kind"));
  CHECK_THROWS_WITH(parse("system:\n  chips: 2\n"), Catch::Contains("system.fabric.config"));
  CHECK_THROWS_WITH(parse("system:\n  tiles_per_chip: 2\n  tile:\n    kinds: [rtl]\n"),
                    Catch::Contains("system.tile.kinds"));
  CHECK_THROWS_WITH(parse("system:\n  memory:\n    kind: hbm\n    config: hbm/none.yaml\n"),
                    Catch::Contains("test.yaml:4") && Catch::Contains("no such file"));
  CHECK_THROWS_WITH(parse("system:\n  chips: many\n"), Catch::Contains("test.yaml:2") && Catch::Contains("system.chips"));
  // Fields another choice would ignore without a word.
  CHECK_THROWS_WITH(parse("system:\n  tile:\n    kind: rtl\n    kinds: [model]\n"),
                    Catch::Contains("test.yaml:4: field 'system.tile.kinds': give kind (every tile) or kinds"));
  CHECK_THROWS_WITH(parse("system:\n  memory:\n    config: hbm/hbm2.yaml\n"),
                    Catch::Contains("test.yaml:3: field 'system.memory.config': an HBM preset, but the memory is kind ideal"));
  CHECK_THROWS_WITH(parse("system:\n  memory:\n    kind: hbm\n    config: hbm/hbm2.yaml\n    latency_ns: 50\n"),
                    Catch::Contains("test.yaml:5: field 'system.memory.latency_ns': an ideal memory's field"));
  // Given with an ideal memory, a preset that does not exist is that mistake first.
  CHECK_THROWS_WITH(parse("system:\n  memory:\n    config: hbm/none.yaml\n"),
                    Catch::Contains("test.yaml:3: field 'system.memory.config': an HBM preset, but the memory is kind ideal"));
  // The preset's own errors, before anything runs, from the line that names it.
  CHECK_THROWS_WITH(parse("system:\n  memory:\n    kind: hbm\n    config: ici/ring4.yaml\n"),
                    Catch::StartsWith("test.yaml:4: field 'system.memory.config': " + kConfigs + "/ici/ring4.yaml:") &&
                        Catch::Contains("unknown key"));
  CHECK_THROWS_WITH(parse("system: [1, 2\n"), Catch::Contains("YAML syntax"));
  // An empty file has no line to name ("test.yaml:0" before).
  CHECK_THROWS_WITH(parse(""), "test.yaml: field 'system': missing: the file must have a top-level 'system' mapping");
  CHECK_THROWS_WITH(parse("chips: 1\n"), "test.yaml:1: field 'chips': unknown key (expected one of: system)");
  CHECK_THROWS_WITH(parse("sytem:\n  chips: 1\n"), "test.yaml:1: field 'sytem': unknown key (expected one of: system)");
  CHECK_THROWS_WITH(parse("[1, 2]\n"),
                    "test.yaml:1: field 'system': missing: the file must have a top-level 'system' mapping");
  CHECK_THROWS_WITH(load_system_config("/nonexistent/system.yaml"), Catch::Contains("/nonexistent/system.yaml"));
}

TEST_CASE("backpressure must be at least 0 and below 1, in a file as on the command line") {
  CHECK_THROWS_WITH(parse("system:\n  checks:\n    backpressure: 2\n"),
                    "test.yaml:3: field 'system.checks.backpressure': must be in [0, 1)");
  CHECK_THROWS_WITH(parse("system:\n  checks:\n    backpressure: 1\n"),
                    "test.yaml:3: field 'system.checks.backpressure': must be in [0, 1)");
  CHECK(parse("system:\n  checks:\n    backpressure: 0.9995\n").backpressure == 0.9995);
  // Not a number at all: the range said is the field's, not that of every double.
  for (const char* v : {".nan", ".inf", "-.inf"})
    CHECK_THROWS_WITH(parse(std::string("system:\n  checks:\n    backpressure: ") + v + "\n"),
                      "test.yaml:3: field 'system.checks.backpressure': must be in [0, 1)");
  CHECK_THROWS_WITH(parse("system:\n  checks:\n    backpressure: [1]\n"),
                    "test.yaml:3: field 'system.checks.backpressure': expected a number");
}

TEST_CASE("system.chips is at most 256, the chips an instruction can name, in a file as in code") {
  const std::string ring = kConfigs + "/ici/tpu4096_analytic.yaml";  // a fabric of 4096 chips
  const auto text = [&](int chips) {
    return "system:\n  chips: " + std::to_string(chips) + "\n  tile: {kind: model}\n  fabric: {config: " + ring + "}\n";
  };
  CHECK(parse(text(256)).chips == 256);
  CHECK_THROWS_WITH(parse(text(257)), "test.yaml:2: field 'system.chips': must be in [1, 256], got 257");
  SystemConfig c = parse(text(256));
  c.chips = 300;
  CHECK_THROWS_WITH(validate(c), "test.yaml:2: field 'system.chips': must be in 1..256");  // where the file set it
}

TEST_CASE("an array side above 1024 is refused in code as in a file") {
  SystemConfig c = default_system_config();
  c.tile_kinds = {TileKind::kModel};
  c.rows = 1024;
  CHECK_NOTHROW(validate(c));
  c.rows = 1025;
  CHECK_THROWS_WITH(validate(c), "<built-in>: field 'system.tile.rows': must be in [1, 1024], got 1025");
  c.rows = 4;
  c.cols = 20000;
  CHECK_THROWS_WITH(validate(c), "<built-in>: field 'system.tile.cols': must be in [1, 1024], got 20000");
}

TEST_CASE("a fabric on a one-chip system is refused at the line of fabric.config") {
  CHECK_THROWS_WITH(parse("system:\n  fabric:\n    config: ici/ring4.yaml\n"),
                    Catch::StartsWith("test.yaml:3: field 'system.fabric.config': a fabric links chips, and the "
                                      "system has one"));
  CHECK_THROWS_WITH(parse("system:\n  chips: 1\n  fabric:\n    config: ici/ring4.yaml\n"),
                    Catch::StartsWith("test.yaml:4: field 'system.fabric.config'"));
  CHECK(parse("system:\n  chips: 2\n  fabric:\n    config: ici/ring4.yaml\n").chips == 2);
}

TEST_CASE("the reference block of docs/configs.md is a config that loads, with the values it shows") {
  const std::string doc = read(std::string(MXCOSIM_SOURCE_DIR) + "/docs/configs.md");
  const auto begin = doc.find("```yaml\n");
  REQUIRE(begin != std::string::npos);
  const auto end = doc.find("```", begin + 8);
  REQUIRE(end != std::string::npos);
  // Its paths are relative to configs/, as in a file there.
  const SystemConfig c = parse_system_config(doc.substr(begin + 8, end - begin - 8), "configs.md", kConfigs);
  CHECK(c.chips == 2);
  CHECK(c.tiles_per_chip == 2);
  CHECK(c.tile_kinds == std::vector<TileKind>{TileKind::kRtl, TileKind::kModel});
  CHECK(c.memory == "hbm");
  CHECK(c.ici_config == kConfigs + "/ici/ring4.yaml");
  CHECK(c.watchdog_cycles == 200000);
}

TEST_CASE("a missing system config says there is no such file") {
  CHECK_THROWS_WITH(load_system_config("/nonexistent/system.yaml"),
                    "/nonexistent/system.yaml: cannot open the system configuration: no such file");
}

TEST_CASE("a system config checked in code names the field at fault") {
  SystemConfig c = default_system_config();
  c.cols = 0;  // rows was blamed for it
  CHECK_THROWS_WITH(validate(c), "<built-in>: field 'system.tile.cols': must be in [1, 1024], got 0");
  c = default_system_config();
  // 200 us at 1 GHz is the watchdog's 200 000 cycles: every run would stop as hung.
  c.ideal_latency_ps = 200'000'000;
  CHECK_THROWS_WITH(validate(c), Catch::StartsWith("<built-in>: field 'system.memory.latency_ns': 200000 ns is 200000 "
                                                   "tile cycles, not below system.checks.watchdog_cycles 200000"));
  c.ideal_latency_ps -= 1000;  // a cycle less passes
  CHECK_NOTHROW(validate(c));
  // At the period the run uses: 99 000 MHz runs at 10 ps, so 2010 ns is 201 000 cycles, not 198 990.
  c.tile_mhz = 99'000;
  c.ideal_latency_ps = 2'010'000;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("2010 ns is 201000 tile cycles"));
  c.tile_mhz = 1000;
  // A file may leave it to the command line to lower the latency (or raise the watchdog):
  // loading it passes, and the check comes once the overrides are in.
  SystemConfig file = parse("system:\n  memory:\n    latency_ns: 1000\n  checks:\n    watchdog_cycles: 1000\n");
  CHECK_THROWS_WITH(validate(file), Catch::Contains("field 'system.memory.latency_ns'"));
  file.ideal_latency_ps = 500'000;  // --mem-latency-ns 500
  CHECK_NOTHROW(validate(file));
  CHECK_THROWS_WITH(parse("system:\n  checks:\n    watchdog_cycles: 0\n"),
                    Catch::Contains("test.yaml:3: field 'system.checks.watchdog_cycles': must be >= 1"));
}

TEST_CASE("a fabric whose idle latency reaches the watchdog is refused before the run, not stopped as hung") {
  // ring4.yaml: 500 ns link + 500 ns router a hop. Over 4 chips the longest path is 2 hops,
  // 2 us plus a header's serialisation: at 100 GHz about 200 000 tile cycles, the watchdog's
  // limit; `run` on a K-split GEMM failed as a hang there.
  SystemConfig c = load_system_config(kConfigs + "/chip4x1_model.yaml");
  CHECK_NOTHROW(check_fabric_latency(c));
  c.tile_mhz = 100'000;
  CHECK_THROWS_WITH(check_fabric_latency(c),
                    Catch::Contains("chip4x1_model.yaml:3: field 'system.checks.watchdog_cycles': 200000 tile cycles "
                                    "is not above the fabric's latency over its longest path of 2 hops") &&
                        Catch::Contains("raise watchdog_cycles"));
  // The run's clock has a whole-picosecond period: 99 000 MHz runs at 10 ps, as 100 000 MHz does
  // (2001.42 ns is 200 142 cycles of it), and 95 000 MHz at 11 ps (181 947 cycles) passes.
  c.tile_mhz = 99'000;
  CHECK_THROWS_WITH(check_fabric_latency(c), Catch::Contains("200142 tile cycles at 99000 MHz (10 ps)"));
  c.tile_mhz = 95'000;
  CHECK_NOTHROW(check_fabric_latency(c));
  c.tile_mhz = 100'000;
  // Two chips of the ring are one hop apart: half the latency passes.
  c.chips = 2;
  CHECK_NOTHROW(check_fabric_latency(c));
  c.chips = 4;
  c.watchdog_cycles = 1'000'000;
  CHECK_NOTHROW(check_fabric_latency(c));
  // The same run with its watchdog raised passes: the rows were only slow.
  SystemRunOptions o;
  o.system = c;
  o.workload.shape = {4, 16, 4, DType::kInt8};
  o.workload.split = "k";
  const SystemRunResult r = run_system(o);
  INFO(r.error);
  CHECK(r.passed);
}

TEST_CASE("more chips than the fabric has are refused at the file's line of system.chips") {
  const std::string ring4 = kConfigs + "/ici/ring4.yaml";
  const auto text = [&](int chips) {
    return "# a ring of four chips\nsystem:\n  chips: " + std::to_string(chips) + "\n  fabric:\n    config: " + ring4 +
           "\n";
  };
  CHECK_THROWS_WITH(parse(text(8)), "test.yaml:3: field 'system.chips': 8 chips do not fit the fabric of 4 chips in " +
                                        ring4 + " (system.fabric.config, line 5): give at most 4 chips or a larger fabric");
  CHECK(parse(text(4)).chips == 4);
}

TEST_CASE("a system built in code with more chips than its fabric is refused in the loader's words") {
  SystemRunOptions o;
  o.system.chips = 8;
  o.system.tile_kinds = {TileKind::kModel};
  o.system.ici_config = kConfigs + "/ici/ring4.yaml";
  CHECK_THROWS_WITH(run_system(o), "<built-in>: field 'system.chips': 8 chips do not fit the fabric of 4 chips in " +
                                       o.system.ici_config + ": give at most 4 chips or a larger fabric");
}

TEST_CASE("a system of model tiles runs at a size with no RTL, and one RTL tile needs a verilated size") {
  SystemRunOptions o;
  o.system.rows = o.system.cols = 12;  // no build has a 12x12 tile
  o.system.tile_kinds = {TileKind::kModel};
  o.workload.shape = {24, 24, 24, DType::kInt8};
  const SystemRunResult r = run_system(o);
  INFO(r.error);
  CHECK(r.passed);
  REQUIRE(r.tiles.size() == 1);
  CHECK(r.tiles[0].kind == TileKind::kModel);
  CHECK(r.tiles[0].instructions > 0);
  CHECK(r.rtl_cycles > 0);
  o.system.tile_kinds = {TileKind::kRtl};
  CHECK_THROWS_WITH(run_system(o), Catch::Contains("no RTL of a 12x12 array"));
}

TEST_CASE("a broken fabric file is reported at the system file's line of system.fabric.config") {
  // A directory passes the loader's existence check and fails only when the fabric is read.
  CHECK_THROWS_WITH(parse("system:\n  chips: 2\n  fabric:\n    config: ici\n"),
                    "test.yaml:4: field 'system.fabric.config': " + kConfigs +
                        "/ici: cannot open ICI config file: it is a directory");
  const mxc::testing::TempDir tmp;
  const std::string bad = tmp / "bad_fabric.yaml";
  std::ofstream(bad) << "ici:\n  model: torus\n  bogus: 1\n";
  CHECK_THROWS_WITH(parse("system:\n  chips: 2\n  fabric:\n    config: " + bad + "\n"),
                    Catch::StartsWith("test.yaml:4: field 'system.fabric.config': " + bad +
                                      ":3: field 'ici.bogus': unknown key"));
}

TEST_CASE("an HBM preset or a fabric given as a FIFO is refused at its line: a run reads them more than once") {
  // A FIFO no one writes: the loader must not open it (that would block), nor a run read it
  // twice (the second read had blocked for ever, or found a preset with nothing in it).
  const mxc::testing::TempDir tmp;
  const std::string fifo = tmp / "fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const std::string why = fifo + " is not a regular file (a pipe or a device?): a run reads it more than once";
  CHECK_THROWS_WITH(parse("system:\n  memory:\n    kind: hbm\n    config: " + fifo + "\n"),
                    "test.yaml:4: field 'system.memory.config': " + why);
  CHECK_THROWS_WITH(parse("system:\n  chips: 2\n  fabric: {config: " + fifo + "}\n"),
                    "test.yaml:3: field 'system.fabric.config': " + why);
}

TEST_CASE("every shipped system config loads") {
  for (const char* f : {"tile4_ideal.yaml", "tile8_hbm2.yaml", "chip2x2_rtl.yaml", "chip2x2_mixed.yaml"})
    CHECK_NOTHROW(load_system_config(kConfigs + "/" + f));
}

TEST_CASE("two chips of two RTL tiles on HBM and a ring compute every chip's GEMM") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_rtl.yaml");
  o.workload.shape = {13, 9, 11, DType::kInt8};  // 11 columns: 3 blocks of 4 over 2 tiles
  o.seed = 7;
  const SystemRunResult r = run_system(o);
  INFO(r.error << (r.mismatches.empty() ? "" : to_string(r.mismatches[0])));
  CHECK(r.passed);
  CHECK(r.elements_checked == 2u * 13 * 11);
  REQUIRE(r.tiles.size() == 4);
  // The tiles shared their chip's memory: together they read at least A twice and B once.
  CHECK(r.hbm_read_bytes > 0);
  CHECK(r.hbm_write_bytes > 0);
}

TEST_CASE("the same run twice gives byte-identical results JSON, another seed does not") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_rtl.yaml");
  o.workload.shape = {8, 8, 8, DType::kBf16};
  o.seed = 5;
  const std::string a = results_json(o, run_system(o)).dump(2);
  const std::string b = results_json(o, run_system(o)).dump(2);
  CHECK(a == b);
  o.seed = 6;
  CHECK(results_json(o, run_system(o)).dump(2) != a);
}

TEST_CASE("a workload for the wrong number of chips is refused with a clear message") {
  SystemRunOptions o;
  Workload w;
  w.description = "empty";
  CHECK_THROWS_WITH(run_system(o, w), Catch::Contains("for 0 chips") && Catch::Contains("has 1"));
}

TEST_CASE("a GEMM split over two chips through the fabric: K with reduce-scatter, N with all-gather") {
  for (const char* split : {"k", "n"}) {
    SystemRunOptions o;
    o.system = load_system_config(kConfigs + "/chip2x2_rtl.yaml");
    o.workload.shape = {12, 16, 8, DType::kInt8};
    o.workload.split = split;
    o.seed = 4;
    const SystemRunResult r = run_system(o);
    INFO("split " << split << ": " << r.error << (r.mismatches.empty() ? "" : to_string(r.mismatches[0])));
    CHECK(r.passed);
    CHECK(r.ici_bytes > 0);
    CHECK(r.model_cycles == r.rtl_cycles);  // the model matches the RTL through the fabric too
  }
}

TEST_CASE("a two-layer MLP and an assembly program run on the RTL and are checked") {
  SystemRunOptions o;
  o.workload.kind = "mlp";
  o.workload.shape = {8, 12, 8, DType::kBf16};
  o.workload.hidden = 8;
  auto r = run_system(o);
  INFO(r.error << (r.mismatches.empty() ? "" : to_string(r.mismatches[0])));
  CHECK(r.passed);
  CHECK(r.elements_checked == 8u * 8);
  o.workload.kind = "program";
  o.workload.program_files = {std::string(MXCOSIM_SOURCE_DIR) + "/tests/programs/int8_matmul.s"};
  r = run_system(o);
  INFO(r.error << (r.mismatches.empty() ? "" : to_string(r.mismatches[0])));
  CHECK(r.passed);
  CHECK(r.elements_checked > 0);
}

TEST_CASE("a GEMM's column blocks go to a chip's first tiles, so tile 0 always works") {
  // 4-column blocks: each tile takes blocks / tiles of them and the first blocks % tiles one more.
  const TileGeometry geo;  // 4x4
  const auto columns = [&](std::uint32_t tiles, std::uint32_t n) {
    SystemConfig cfg;
    cfg.tiles_per_chip = tiles;
    cfg.tile_kinds.assign(tiles, TileKind::kRtl);
    WorkloadSpec spec;
    spec.shape = {4, 4, n, DType::kInt8};
    const Workload w = build_workload(spec, cfg, geo, 1);
    std::vector<std::uint32_t> per_tile(tiles, 0);
    for (const ResultRegion& r : w.regions[0]) per_tile.at(r.producer_tile) = r.layout.cols;
    for (std::uint32_t t = 0; t < tiles; ++t) CHECK(w.programs[0][t].empty() == (per_tile[t] == 0));
    return per_tile;
  };
  // Over 3 tiles: n = 4 is one block (tile 0 alone), 8 two (tiles 0 and 1), 18 five, the last
  // of 2 columns (2, 2 and 1 blocks).
  CHECK(columns(3, 4) == std::vector<std::uint32_t>{4, 0, 0});
  CHECK(columns(3, 8) == std::vector<std::uint32_t>{4, 4, 0});
  CHECK(columns(3, 18) == std::vector<std::uint32_t>{8, 8, 2});
  // Over 4 tiles: 2 blocks went to tiles 0 and 2, and 6 blocks 2, 1, 2, 1 (ceil(t * blocks / tiles)).
  CHECK(columns(4, 8) == std::vector<std::uint32_t>{4, 4, 0, 0});
  CHECK(columns(4, 24) == std::vector<std::uint32_t>{8, 8, 4, 4});
}

TEST_CASE("a program runs on random bytes where its loads read, drawn from the seed") {
  // int8_matmul.s loads W (rows at 0x1000, 0x1020) and X (0x2000, 0x2020),
  // 2 bytes each, and stores C = X x W as int32 rows at 0x3000 and 0x3020.
  WorkloadSpec spec;
  spec.kind = "program";
  spec.program_files = {std::string(MXCOSIM_SOURCE_DIR) + "/tests/programs/int8_matmul.s"};
  const SystemConfig cfg;
  const TileGeometry geo;
  const Workload a = build_workload(spec, cfg, geo, 5);
  const Workload b = build_workload(spec, cfg, geo, 5);
  const Workload c = build_workload(spec, cfg, geo, 6);
  const std::uint64_t rows[4] = {0x1000, 0x1020, 0x2000, 0x2020};
  bool differs = false;
  for (const std::uint64_t at : rows) {
    CHECK(a.images[0].read(at, 2) == b.images[0].read(at, 2));
    differs = differs || a.images[0].read(at, 2) != c.images[0].read(at, 2);
    CHECK(a.images[0].read(at + 2, 30) == std::vector<std::uint8_t>(30, 0));  // only what the loads read
  }
  CHECK(differs);
  // The reference computes on those bytes: C[i][j] = sum_k X[i][k] W[k][j].
  const auto s8 = [&](std::uint64_t at) {
    return static_cast<std::int32_t>(static_cast<std::int8_t>(a.images[0].read(at, 1)[0]));
  };
  Workload run = build_workload(spec, cfg, geo, 5);  // the same image, to run on
  SparseMemory& hbm = run.images[0];
  FunctionalTile t(geo, hbm);
  t.run(a.programs[0][0]);
  bool nonzero = false;
  for (std::uint32_t i = 0; i < 2; ++i)
    for (std::uint32_t j = 0; j < 2; ++j) {
      const std::int32_t want = s8(0x2000 + 0x20 * i) * s8(0x1000 + j) + s8(0x2000 + 0x20 * i + 1) * s8(0x1020 + j);
      const std::vector<std::uint8_t> got = hbm.read(0x3000 + 0x20 * i + 4 * j, 4);
      std::int32_t v = 0;
      std::memcpy(&v, got.data(), 4);
      CHECK(v == want);
      nonzero = nonzero || v != 0;
    }
  CHECK(nonzero);
}

TEST_CASE("a program the tiles cannot execute, or without instructions, is refused before the run") {
  // The default system's tile is 4x4 with 256 accumulator rows.
  const mxc::testing::TempDir tmp;
  const std::filesystem::path path = tmp / "past_geometry.s";
  SystemRunOptions o;
  o.workload.kind = "program";
  o.workload.program_files = {path.string()};
  {
    std::ofstream f(path);
    f << "# loads five rows of weights into a four-row array\nload_weights rows=5 cols=4 sp_row=0\n";
  }
  CHECK_THROWS_WITH(run_system(o), path.string() + ":2: field 'rows': 5 exceeds the 4-row array");
  {
    std::ofstream f(path);
    f << "# nothing\n";
  }
  CHECK_THROWS_WITH(run_system(o), path.string() + ": no instructions");
}

TEST_CASE("RTL and model tiles mix freely, model tiles' results are timing only and not data-checked") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/chip2x2_mixed.yaml");
  o.workload.shape = {10, 8, 16, DType::kInt8};
  const SystemRunResult r = run_system(o);
  INFO(r.error << (r.mismatches.empty() ? "" : to_string(r.mismatches[0])));
  CHECK(r.passed);
  CHECK(r.elements_checked == 2u * 10 * 8);  // the RTL tiles' half of N on each chip
  REQUIRE(r.tiles.size() == 4);
  CHECK(r.tiles[1].kind == TileKind::kModel);
}

TEST_CASE("the timeline of the same run is byte-identical, and names instructions, requests and DRAM commands") {
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/tile8_hbm2.yaml");
  o.system.rows = o.system.cols = 4;  // the HBM system of that config, on the size every test build holds
  o.workload.shape = {8, 16, 8, DType::kInt8};
  const mxc::testing::TempDir tmp;
  const std::string a = tmp / "trace_a.json";
  const std::string b = tmp / "trace_b.json";
  o.trace = a;
  REQUIRE(run_system(o).passed);
  o.trace = b;
  REQUIRE(run_system(o).passed);
  const std::string ta = read(a);
  CHECK(ta == read(b));
  CHECK(ta.find("\"MATMUL\"") != std::string::npos);
  CHECK(ta.find("\"ACT\"") != std::string::npos);
  CHECK(ta.find("dut.chip0.hbm") != std::string::npos);
}

TEST_CASE("the model shadow on a thread of its own and on the calling thread give byte-identical results") {
  // The shadow runs in a kernel of its own: on its own thread it follows the design step by step
  // behind it, on the calling thread it runs after it. Both must stop where one kernel holding
  // both sets stops (tests/transport checks that order against a split run's single kernel).
  struct Case {
    std::string config;
    GemmShape shape;
    double backpressure;
    std::uint64_t watchdog;
    bool passes;  ///< ends normally (no hang)
  };
  const std::vector<Case> cases = {
      {"chip2x2_rtl.yaml", {12, 16, 8, DType::kInt8}, 0, 0, true},
      {"chip2x2_mixed.yaml", {8, 8, 12, DType::kBf16}, 0.25, 0, true},
      {"tile4_ideal.yaml", {16, 8, 8, DType::kInt8}, 0.25, 0, true},
      // A watchdog shorter than one HBM read: the design hangs early, the shadow stops with it.
      {"chip2x2_rtl.yaml", {8, 8, 8, DType::kInt8}, 0, 10, false},
  };
  const mxc::testing::TempDir tmp;
  const std::string trace = tmp / "shadow_thread.json";
  for (const Case& c : cases) {
    SystemRunOptions o = gemm_run(c.config, c.shape, c.backpressure, c.watchdog);
    o.trace = trace;
    o.shadow_thread = true;
    const SystemRunResult threaded = run_system(o);
    const std::string threaded_trace = read(trace);
    o.shadow_thread = false;
    const SystemRunResult alone = run_system(o);
    INFO(c.config << ": " << threaded.error);
    CHECK(threaded.error.empty() == c.passes);  // timing mismatches may fail a run that ends normally
    CHECK(results_json(o, threaded).dump(2) == results_json(o, alone).dump(2));
    CHECK(threaded_trace == read(trace));
    CHECK(threaded.model_cycles.has_value());
  }
}

TEST_CASE("the shadow's memories replayed from the design's and simulated give byte-identical results") {
  // While the shadow makes the design's memory calls the replay answers from their log; where
  // they differ (backpressure the model does not see, a hang) it hands over to a memory of its
  // own brought to the logged state. Either way the results are those of a second simulation.
  struct Case {
    std::string config;
    GemmShape shape;
    double backpressure;
    std::uint64_t watchdog;
    bool replayed;  ///< the shadow's calls agree throughout (no memory simulated)
  };
  const std::vector<Case> cases = {
      {"chip2x2_rtl.yaml", {12, 16, 8, DType::kInt8}, 0, 0, true},
      {"chip2x2_mixed.yaml", {8, 8, 12, DType::kBf16}, 0, 0, true},
      {"chip2x2_rtl.yaml", {8, 16, 8, DType::kBf16}, 0.25, 0, false},
      {"tile4_ideal.yaml", {16, 8, 8, DType::kInt8}, 0.25, 0, false},
      // The design hangs early; the shadow, run to the same step, made the same calls till then.
      {"chip2x2_rtl.yaml", {8, 8, 8, DType::kInt8}, 0, 30, true},
  };
  // The traces hold every request of both sets with its times: the shadow's monitors log
  // nothing while the replay holds, and stand in for or catch up with the design's log.
  const mxc::testing::TempDir tmp;
  const std::string trace = tmp / "shadow_replay.json";
  for (const Case& c : cases) {
    for (const bool threaded : {true, false}) {
      SystemRunOptions o = gemm_run(c.config, c.shape, c.backpressure, c.watchdog);
      o.trace = trace;
      o.shadow_thread = threaded;
      o.shadow_memory = SystemRunOptions::ShadowMemory::kReplay;
      const SystemRunResult replayed = run_system(o);
      const std::string replayed_trace = read(trace);
      o.shadow_memory = SystemRunOptions::ShadowMemory::kSimulate;
      const SystemRunResult simulated = run_system(o);
      const std::string simulated_trace = read(trace);
      o.shadow_memory = SystemRunOptions::ShadowMemory::kAuto;
      const SystemRunResult automatic = run_system(o);
      INFO(c.config << " backpressure " << c.backpressure << (threaded ? " threaded" : " one thread"));
      CHECK(results_json(o, replayed).dump(2) == results_json(o, simulated).dump(2));
      CHECK(results_json(o, automatic).dump(2) == results_json(o, simulated).dump(2));
      CHECK(replayed_trace == simulated_trace);
      CHECK(replayed_trace == read(trace));
      CHECK(replayed.shadow_memory_replayed == c.replayed);
      CHECK_FALSE(simulated.shadow_memory_replayed);
      // Automatic: replayed on the calling thread, simulated on a thread of its own.
      CHECK(automatic.shadow_memory_replayed == (c.replayed && !threaded));
    }
  }
}

TEST_CASE("requests past the HBM's capacity are counted in the results") {
  // One HBM2 stack holds 16 pseudo-channels x 16 banks x 16384 rows x 1 KiB
  // = 4 GiB. This program loads a row from 8 GiB + 4 KiB and, after a
  // fence, stores it to 8 GiB + 12 KiB: one read and one write request
  // (a row of one AXI beat) past the capacity.
  const mxc::testing::TempDir tmp;
  const std::filesystem::path path = tmp / "beyond_capacity.s";
  {
    std::ofstream f(path);
    f << "dma_load rows=1 cols=4 sp_row=0 hbm_addr=0x200001000 hbm_stride=32\n"
         "fence\n"
         "dma_store rows=1 cols=4 sp_row=0 hbm_addr=0x200003000 hbm_stride=32\n";
  }
  SystemRunOptions o;
  o.system = load_system_config(kConfigs + "/tile4_ideal.yaml");
  o.system.memory = "hbm";
  o.system.hbm_config = kConfigs + "/hbm/hbm2.yaml";
  o.workload.kind = "program";
  o.workload.program_files = {path.string()};
  SystemRunResult r = run_system(o);
  INFO(r.error << (r.mismatches.empty() ? "" : to_string(r.mismatches[0])));
  CHECK(r.passed);  // the data stays at the addresses given
  CHECK(r.hbm_requests_beyond_capacity == 2);
  CHECK(results_json(o, r).at("hbm_requests_beyond_capacity") == 2);
  // Within the capacity: none.
  o.workload.program_files = {std::string(MXCOSIM_SOURCE_DIR) + "/tests/programs/int8_matmul.s"};
  r = run_system(o);
  CHECK(r.passed);
  CHECK(r.hbm_requests_beyond_capacity == 0);
}

TEST_CASE("a DMA that outlasts the watchdog is no hang while its memory answers") {
  // One request in flight, each answered 2 us after it was sent: the first DMA_LOAD's 64
  // rows alone take 128 000 cycles, past the 20 000-cycle watchdog, which counted only
  // instructions completed and stopped the run as hung.
  SystemRunOptions o = gemm_run("tile4_ideal.yaml", {64, 4, 4, DType::kInt8}, 0, 20'000);
  o.system.ideal_latency_ps = 2'000'000;
  o.system.ideal_outstanding = 1;
  const SystemRunResult r = run_system(o);
  INFO(r.error);
  CHECK(r.error.empty());
  CHECK(r.passed);
  CHECK(r.rtl_cycles > 64 * 2000);
}

TEST_CASE("the compiled workloads and the shipped programs read only what they wrote") {
  // Anything else would leave the RTL's seeded random state in the results.
  struct Case {
    std::string config, kind, split;
    GemmShape shape;
  };
  const std::vector<Case> cases = {
      {"chip2x2_model.yaml", "gemm", "none", {5, 7, 3, DType::kInt8}},
      {"chip2x2_model.yaml", "gemm", "none", {13, 21, 9, DType::kBf16}},
      {"chip2x2_model.yaml", "gemm", "k", {12, 16, 8, DType::kInt8}},
      {"chip2x2_model.yaml", "gemm", "n", {9, 11, 10, DType::kBf16}},
      {"chip2x2_model.yaml", "mlp", "none", {6, 5, 7, DType::kInt8}},
      {"chip2x2_mixed.yaml", "gemm", "none", {8, 8, 12, DType::kBf16}},
  };
  for (const Case& c : cases) {
    SystemRunOptions o = gemm_run(c.config, c.shape, 0, 0);
    o.workload.kind = c.kind;
    o.workload.split = c.split;
    const SystemRunResult r = run_system(o);
    INFO(c.config << " " << c.kind << " split " << c.split);
    CHECK(r.error.empty());
    CHECK(r.undefined_reads.empty());
  }
  for (const char* program : {"int8_matmul.s", "bf16_relu.s", "ici_loopback.s", "ici_acc_add.s"}) {
    SystemRunOptions o = gemm_run("tile4_ideal.yaml", {}, 0, 0);
    o.workload.kind = "program";
    o.workload.program_files = {std::string(MXCOSIM_SOURCE_DIR) + "/tests/programs/" + program};
    const SystemRunResult r = run_system(o);
    INFO(program << ": " << (r.undefined_reads.empty() ? "" : r.undefined_reads.front()));
    CHECK(r.passed);
    CHECK(r.undefined_reads.empty());
  }
  // And a program that stores rows it never loaded is told so, with the run's failure.
  const mxc::testing::TempDir tmp;
  const std::string prog = tmp / "store.s";
  mxc::testing::write_text(prog, "dma_store rows=2 cols=32 sp_row=100 hbm_addr=0x3000 hbm_stride=32\n");
  SystemRunOptions o = gemm_run("tile4_ideal.yaml", {}, 0, 0);
  o.workload.kind = "program";
  o.workload.program_files = {prog};
  const SystemRunResult r = run_system(o);
  CHECK_FALSE(r.passed);
  CHECK(r.undefined_reads == std::vector<std::string>{"chip0.tile0: 'dma_store rows=2 cols=32 sp_row=100 "
                                                      "hbm_addr=0x3000 hbm_stride=32' reads scratchpad rows "
                                                      "100..101 bytes 0..31, never written"});
}

TEST_CASE("a timeline that cannot be written costs the timeline, not the results of the finished run") {
  SystemRunOptions o;
  o.workload.shape = {4, 4, 4, DType::kInt8};
  o.trace = "/dev/full";  // every write fails: no space left on the device
  SystemRunResult r;
  REQUIRE_NOTHROW(r = run_system(o));
  CHECK(r.passed);
  CHECK(r.elements_checked == 16);
  CHECK(r.trace_error.find("cannot write trace file '/dev/full'") != std::string::npos);
  o.trace.clear();
  CHECK(run_system(o).trace_error.empty());
}

TEST_CASE("a run stopped as hung counts the model's cycles to the stop, not to where the model went to sleep") {
  // A watchdog shorter than an HBM read's latency: both sides stop while waiting on their
  // first reads, the RTL evaluating every cycle, the model asleep since it sent its requests.
  SystemRunOptions o;
  o.system.memory = "hbm";
  o.system.hbm_config = kConfigs + "/hbm/hbm2.yaml";
  o.system.tile_mhz = 2000;
  o.system.watchdog_cycles = 5;
  const SystemRunResult r = run_system(o);
  REQUIRE_FALSE(r.error.empty());
  REQUIRE(r.tiles.size() == 1);
  REQUIRE(r.model_cycles);
  // The shadow runs every step before the design's last one: the RTL's last edge, if its
  // step came at that time, is the only one the model has not reached.
  INFO("rtl " << r.tiles[0].cycles << ", model " << r.tiles[0].model_cycles);
  CHECK(r.tiles[0].model_cycles + 1 >= r.tiles[0].cycles);
  CHECK(r.tiles[0].model_cycles <= r.tiles[0].cycles);
  CHECK(*r.model_cycles == r.tiles[0].model_cycles);
}

TEST_CASE("results.json's config holds the pass criteria the run was judged by") {
  SystemRunOptions o;
  o.system = parse(
      "system:\n  tiles_per_chip: 2\n  tile: {kinds: [rtl, model]}\n"
      "  checks: {tolerance_cycles: 7, tolerance_percent: 12.5, watchdog_cycles: 12345, hbm_timing_check: false}\n");
  const auto j = results_json(o, SystemRunResult{});
  const auto& c = j.at("config");
  CHECK(c.at("tile_kinds") == nlohmann::json::array({"rtl", "model"}));
  CHECK(c.at("tolerance_cycles") == 7);
  CHECK(c.at("tolerance_percent") == 12.5);
  CHECK(c.at("watchdog_cycles") == 12345);
  CHECK(c.at("hbm_timing_check") == false);
  CHECK(c.at("backpressure") == 0.0);  // the fields before them stay
}

TEST_CASE("results.json's config holds the ideal memory's latency and requests in flight, null with HBM") {
  SystemRunOptions o;
  o.system = parse("system:\n  memory: {kind: ideal, latency_ns: 12.5, outstanding: 3}\n");
  const auto c = results_json(o, SystemRunResult{}).at("config");
  CHECK(c.at("mem_latency_ns") == 12.5);
  CHECK(c.at("mem_outstanding") == 3);
  o.system.memory = "hbm";
  const auto h = results_json(o, SystemRunResult{}).at("config");
  CHECK(h.at("mem_latency_ns").is_null());
  CHECK(h.at("mem_outstanding").is_null());
}

TEST_CASE("an error found after loading names the field's line, or its nearest enclosing one's") {
  const SystemConfig c = parse("system:\n  tile:\n    rows: 3\n  checks:\n    backpressure: 0.5\n");
  CHECK(config_where(c, "system.tile.rows") == "test.yaml:3");
  CHECK(config_where(c, "system.tile.cols") == "test.yaml:2");  // "tile:", not the rows line under it
  CHECK(config_where(c, "system.memory.kind") == "test.yaml:1");  // no memory: "system:"
  CHECK(config_where(SystemConfig{}, "system.tile.rows") == "<built-in>");
  SystemConfig over = c;
  over.tile_mhz = 0;  // as --clock-mhz 0 sets it: the option is at fault, not a line of the file
  over.set_by_option["system.tile.clock_mhz"] = "--clock-mhz";
  CHECK(config_where(over, "system.tile.clock_mhz") == "--clock-mhz");
  CHECK_THROWS_WITH(validate(over),
                    "--clock-mhz: field 'system.tile.clock_mhz': must be in [0.001, 100000], got 0");
  CHECK(config_where(over, "system.tile.rows") == "test.yaml:3");  // the fields the file gives keep their lines
  over.tile_mhz = 1000;
  over.rows = 0;
  CHECK_THROWS_WITH(validate(over), "test.yaml:3: field 'system.tile.rows': must be in [1, 1024], got 0");
}

TEST_CASE("a field an option set over a file that does not give it names the option, not the enclosing line") {
  // tile: {} on line 3: the rows field's nearest enclosing line, which --rows did not come from.
  SystemConfig c = parse("system:\n  chips: 1\n  tile: {}\n");
  CHECK(config_where(c, "system.tile.rows") == "test.yaml:3");
  c.rows = 0;
  c.set_by_option["system.tile.rows"] = "--rows";
  CHECK(config_where(c, "system.tile.rows") == "--rows");
  CHECK_THROWS_WITH(validate(c), "--rows: field 'system.tile.rows': must be in [1, 1024], got 0");
  SystemConfig built_in;  // no file: the option all the same
  built_in.cols = 0;
  built_in.set_by_option["system.tile.cols"] = "--cols";
  CHECK_THROWS_WITH(validate(built_in), "--cols: field 'system.tile.cols': must be in [1, 1024], got 0");
}

TEST_CASE("system.checks.hbm_timing_check decides the HBM timing checker over the preset's check_timing") {
  const mxc::testing::TempDir tmp;
  const std::string preset = tmp / "checked.yaml";
  std::ofstream(preset) << read(kConfigs + "/hbm/hbm2.yaml") << "\ncheck_timing: true\n";
  for (const auto& [file, system, want] : {std::tuple{preset, false, false},
                                           {preset, true, true},
                                           {kConfigs + "/hbm/hbm2.yaml", true, true},
                                           {kConfigs + "/hbm/hbm2.yaml", false, false}}) {
    SystemConfig c;
    c.memory = "hbm";
    c.hbm_config = file;
    c.tile_kinds = {TileKind::kModel};
    c.hbm_timing_check = system;
    const ChipSet set(c, rtl_like_geometry(4, 4), ChipSetOptions{});
    INFO(file << ", hbm_timing_check " << system);
    CHECK(set.hbm_timing_checked(0) == want);
  }
}

TEST_CASE("a run told to stop at a time ends within a cycle past it") {
  // The demo GEMM runs 4251 cycles of 1 ns; stopped after 1000 ns, the design's kernel ends
  // within its next cycle, with the run unfinished (a failure's waveform re-run stops so).
  SystemRunOptions whole = gemm_run("tile4_ideal.yaml", {16, 16, 16, DType::kInt8}, 0, 0);
  const SystemRunResult full = run_system(whole);
  REQUIRE(full.passed);
  REQUIRE(full.sim_time_ps > 4000 * 1000);
  SystemRunOptions cut = whole;
  cut.stop_after_ps = 1000 * 1000;
  const SystemRunResult r = run_system(cut);
  CHECK(r.sim_time_ps > cut.stop_after_ps);
  CHECK(r.sim_time_ps <= cut.stop_after_ps + 1000);
  CHECK_FALSE(r.passed);
  // Said as what it is, not as a hang.
  CHECK(r.error.rfind("stopped at 1000000 ps as asked, before the run finished: ", 0) == 0);
}

TEST_CASE("a run whose stop flag is set stops at its next look and keeps the results so far") {
  // The flag (a signal's, in `mxcosim run`) is looked at every 4096 steps of the design's kernel:
  // set from the start, the run stops at the first look, long before the GEMM's end.
  SystemRunOptions o = gemm_run("tile4_ideal.yaml", {32, 32, 32, DType::kInt8}, 0, 0);
  const SystemRunResult full = run_system(o);
  REQUIRE(full.passed);
  REQUIRE(full.timing.compared);
  std::atomic<bool> never{false}, set{true};
  o.stop = &never;
  CHECK(results_json(o, run_system(o)).dump(2) == results_json(o, full).dump(2));
  o.stop = &set;
  const SystemRunResult r = run_system(o);
  CHECK(r.interrupted);
  CHECK_FALSE(r.passed);
  CHECK(r.sim_time_ps < full.sim_time_ps);
  CHECK(r.rtl_cycles < full.rtl_cycles);
  // No timing or data comparison of a run cut short, as after a hang.
  CHECK_FALSE(r.timing.compared);
  CHECK(r.elements_checked == 0);
  const std::string head = "stopped by a signal at " + std::to_string(r.sim_time_ps) + " ps, before the run finished: ";
  REQUIRE(r.error.rfind(head, 0) == 0);
  const std::size_t of = r.error.find(" of ", head.size());
  REQUIRE(of != std::string::npos);
  CHECK(std::stoul(r.error.substr(head.size(), of - head.size())) < full.instructions);
  CHECK(r.error.find(" of " + std::to_string(full.instructions) + " instructions completed: dut.chip0.tile0: ") == of);
  // The stop point is the design's step count, not a thread's timing: on one thread alike.
  o.shadow_thread = false;
  CHECK(results_json(o, run_system(o)).dump(2) == results_json(o, r).dump(2));
}

namespace {

// Two chips of one 4x4 RTL tile each on a ring, ideal memory: what the programs of a file per chip run on.
SystemRunOptions two_chip_programs(const std::vector<std::string>& files) {
  SystemRunOptions o;
  o.system = parse("system:\n  chips: 2\n  tile: {rows: 4, cols: 4, kind: rtl}\n"
                   "  fabric: {config: ici/ring4.yaml}\n");
  o.workload.kind = "program";
  o.workload.program_files = files;
  o.seed = 3;
  return o;
}

}  // namespace

TEST_CASE("a program per chip: two chips exchange rows with plain sends and the bytes moved are checked") {
  // tests/programs/exchange_chip0.s and exchange_chip1.s: each chip stores at 0x2000 the two rows
  // of 32 bytes the other loaded from its 0x1000, and chip 1 at 0x3000 the first of its own.
  const std::string dir = std::string(MXCOSIM_SOURCE_DIR) + "/tests/programs/";
  const SystemRunOptions o = two_chip_programs({dir + "exchange_chip0.s", dir + "exchange_chip1.s"});
  const Workload w = build_run_workload(o);
  REQUIRE(w.images.size() == 2);
  CHECK(w.description == "programs " + dir + "exchange_chip0.s, " + dir + "exchange_chip1.s (one per chip)");
  // Each chip's loads read bytes drawn from the seed and the chip: the two chips' differ.
  const std::vector<std::uint8_t> rows0 = w.images[0].read(0x1000, 64), rows1 = w.images[1].read(0x1000, 64);
  CHECK(rows0 != rows1);
  CHECK(w.reference->images[1].read(0x2000, 64) == rows0);
  CHECK(w.reference->images[0].read(0x2000, 64) == rows1);
  CHECK(w.reference->images[1].read(0x3000, 32) == std::vector<std::uint8_t>(rows1.begin(), rows1.begin() + 32));
  // The RTL leaves every byte as the reference does.
  const SystemRunResult r = run_system(o, w);
  INFO(r.error << (r.mismatches.empty() ? "" : to_string(r.mismatches[0])));
  CHECK(r.passed);
  CHECK(r.memory_bytes_checked >= 5 * 32);
  CHECK(r.ici_bytes > 0);
  // Reports name the files (results.json: the first as `file`, all as `files`).
  const auto j = results_json(o, r);
  CHECK(j["workload"]["file"] == dir + "exchange_chip0.s");
  CHECK(j["workload"]["files"] == nlohmann::ordered_json::array({dir + "exchange_chip0.s", dir + "exchange_chip1.s"}));
}

TEST_CASE("a program per chip: each file is checked as its chip's and messages name it") {
  const mxc::testing::TempDir tmp;
  const auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = tmp / name;
    std::ofstream(path) << text;
    return path;
  };
  const std::string load = "dma_load rows=1 cols=32 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n";
  // Chip 0 sends chip 1 one row, chip 1 waits for two: no chip can ever send it the second.
  const std::string a = write("a.s", load + "ici_send rows=1 cols=32 sp_row=0 dst_chip=1 remote_row=9 wait_dma=0\n");
  const std::string b = write("b.s", "# waits for more than chip 0 sends\nici_wait rows=2\n");
  CHECK_THROWS_WITH(build_run_workload(two_chip_programs({a, b})),
                    Catch::Contains("deadlock: no chip can progress") && Catch::Contains("chip 1 at " + b + ":2 "));
  // A send into rows overlapping those it sends is refused when the chip sends them to itself only:
  // into another chip's (rows that chip does not use here) they overwrite nothing it has yet to read.
  const auto exchange = [&](const std::string& name, int first, int dst) {
    return write(name, "dma_load rows=2 cols=32 sp_row=" + std::to_string(first) + " hbm_addr=0x1000 hbm_stride=32\n"
                       "ici_send rows=2 cols=32 sp_row=" + std::to_string(first) + " dst_chip=" + std::to_string(dst) +
                       " remote_row=" + std::to_string(first + 1) + " wait_dma=0\nici_wait rows=2\n");
  };
  CHECK_NOTHROW(build_run_workload(two_chip_programs({exchange("c.s", 0, 1), exchange("d.s", 40, 0)})));
  CHECK_THROWS_WITH(build_run_workload(two_chip_programs({exchange("e.s", 0, 1), exchange("f.s", 40, 1)})),
                    Catch::StartsWith(tmp / "f.s" + ":2: field 'remote_row': scratchpad rows 41..42 overlap the "
                                      "rows sent, 40..41: chip 1 sends them to itself"));
  // A hazard names the file of the chip whose program has it.
  const std::string racy = write("racy.s", load + "dma_store rows=1 cols=32 sp_row=0 hbm_addr=0x2000 hbm_stride=32\n"
                                                  "dma_load rows=1 cols=32 sp_row=0 hbm_addr=0x3000 hbm_stride=32\n"
                                                  "matmul rows=1 cols=4 sp_row=0 acc_row=0\n");
  CHECK_THROWS_WITH(build_run_workload(two_chip_programs({write("ok.s", load), racy})),
                    Catch::StartsWith(racy + ":4: "));
  // Neither one file nor one per chip.
  CHECK_THROWS_WITH(build_run_workload(two_chip_programs({a, b, a})),
                    "3 program files for a 2-chip system: give one (every chip runs it) or one per chip");
}
