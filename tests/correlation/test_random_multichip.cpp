// Random valid multi-chip programs (random_program.h, RandomProgramOptions::chips)
// through the whole system as `mxcosim run --config C --program FILE --seed S`
// runs them: every chip's tile 0 the verilated RTL running the same file (4x4,
// a quarter of the seeds 8x8 when verilated), the chips on a fabric of
// configs/ici (a ring, the ring with an injection queue of one message, a
// mesh, or the analytic fabric), half the time with its router and link
// latencies cut to a few ns (rows from other chips arriving while the
// receiver still runs what comes before the send), and the all-model shadow
// compared. Each run must pass (the RTL's memory on every chip, byte for
// byte, what the functional reference leaves there; no hang, no hardware
// error), read nothing unwritten, and every tile's RTL cycles must equal its
// shadow's.
//
// The per-chip mode ("[random-multichip-per-chip]") runs a file per chip
// (random_chip_programs: an exchange of plain, int8 and bf16 rows between
// the chips, the shared program, and a program of the chip's own), as
// `mxcosim run --program A --program B ...` runs them, checked the same way.
//
// Every seed runs; then each failing one is named (its program and config stay
// in the working directory as random_multichip_seedS.s, .yaml and, for a
// fabric of cut latencies, _fabric.yaml, with the command that reruns it in
// the program's comments) and the first is shown in detail.
// MXCOSIM_RANDOM_SEED (first seed) and MXCOSIM_RANDOM_SEEDS (how many) choose
// the seeds: the default case runs 300, "[.random-multichip-long]" 5000, the
// per-chip mode 100.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bridge/checker.h"
#include "bridge/rtl_tile.h"
#include "cosim/system_config.h"
#include "cosim/system_run.h"
#include "models/mxu/assembler.h"
#include "tests/correlation/random_program.h"

using namespace mxc;
using namespace mxc::corr;

namespace {

/// The system seed `seed` runs on, as a config file's text.
struct MultiSetup {
  std::uint32_t chips = 2;
  std::uint32_t side = 4;  ///< The tiles' rows and columns.
  std::size_t max_instructions = 80;  ///< The generator's (before its last waits, sends and stores).
  std::string fabric;  ///< configs/ici file name.
  double fabric_ns = 0;  ///< Not 0: the fabric with every latency_ns this (a file of its own).
  std::string fabric_file;  ///< The fabric's file (the one of configs/ici, or that one written).
  bool hbm = false;
  double latency_ns = 100;
  std::uint32_t outstanding = 64;

  std::string yaml() const {
    std::ostringstream s;
    s << "system:\n  chips: " << chips << "\n  tiles_per_chip: 1\n"
      << "  tile: {rows: " << side << ", cols: " << side << ", clock_mhz: 1000, kind: rtl}\n";
    if (hbm)
      s << "  memory: {kind: hbm, config: " << MXCOSIM_SOURCE_DIR << "/configs/hbm/hbm2.yaml}\n";
    else
      s << "  memory: {kind: ideal, latency_ns: " << latency_ns << ", outstanding: " << outstanding << "}\n";
    s << "  fabric: {config: " << fabric_file << "}\n";
    return s.str();
  }
};

MultiSetup multi_setup_for(std::uint64_t seed) {
  std::mt19937_64 rng(seed * 0xd1b54a32d192ed03ull + 3);
  static constexpr const char* kFabrics[] = {"ring4.yaml", "ring4_q1.yaml", "mesh3x3_q1.yaml",
                                             "tpu4096_analytic.yaml"};
  static constexpr double kLatencies[] = {0, 3, 20, 100, 250};
  static constexpr std::uint32_t kOutstanding[] = {64, 64, 8, 2};
  MultiSetup s;
  s.chips = rng() % 4 == 0 ? 4 : 2;
  s.fabric = kFabrics[rng() % std::size(kFabrics)];
  s.hbm = rng() % 8 == 0;
  s.latency_ns = kLatencies[rng() % std::size(kLatencies)];
  s.outstanding = kOutstanding[rng() % std::size(kOutstanding)];
  static constexpr double kFabricNs[] = {1, 3, 20};
  if (rng() % 2) s.fabric_ns = kFabricNs[rng() % std::size(kFabricNs)];
  if (rng() % 4 == 0) s.max_instructions = 240;
  // A quarter of the seeds on 8x8 tiles when the build verilates them.
  const auto sizes = rtl_tile_sizes();
  if (rng() % 4 == 0 && std::find(sizes.begin(), sizes.end(), std::pair{8u, 8u}) != sizes.end()) s.side = 8;
  return s;
}

/// One seed's program on its system and what the run showed.
struct MultiRun {
  std::uint64_t seed = 0;
  MultiSetup setup;
  bool per_chip = false;  ///< A file per chip (random_chip_programs), else one every chip runs.
  std::string text;      ///< The programs, each after a line naming its file.
  std::filesystem::path file, config, fabric;
  std::vector<std::filesystem::path> chip_files;  ///< Per chip: its file.
  RandomProgramStats stats;
  SystemRunResult result;
  std::vector<std::string> problems;  ///< Empty: it passed.
};

MultiRun run_multichip_seed(std::uint64_t seed, bool per_chip) {
  namespace fs = std::filesystem;
  MultiRun r;
  r.seed = seed;
  r.per_chip = per_chip;
  r.setup = multi_setup_for(seed);
  const TileGeometry geo = rtl_tile_geometry(r.setup.side, r.setup.side);
  RandomProgramOptions options;
  options.chips = r.setup.chips;
  options.high_addresses = !r.setup.hbm;
  options.max_instructions = r.setup.max_instructions;
  const std::vector<Program> programs = per_chip ? random_chip_programs(seed, geo, options, &r.stats)
                                                 : std::vector<Program>{random_program(seed, geo, options, &r.stats)};
  const std::string stem = std::string(per_chip ? "random_perchip_seed" : "random_multichip_seed") +
                           std::to_string(seed);
  r.file = fs::current_path() / (stem + ".s");
  r.config = fs::current_path() / (stem + ".yaml");
  const std::string shipped = std::string(MXCOSIM_SOURCE_DIR) + "/configs/ici/" + r.setup.fabric;
  r.setup.fabric_file = shipped;
  if (r.setup.fabric_ns != 0) {
    // The shipped fabric with every latency (router, link) cut.
    std::ifstream in(shipped);
    std::ostringstream fabric;
    for (std::string line; std::getline(in, line);) {
      const std::size_t at = line.find("latency_ns:");
      if (at != std::string::npos) line = line.substr(0, at) + "latency_ns: " + std::to_string(r.setup.fabric_ns);
      fabric << line << "\n";
    }
    r.fabric = fs::current_path() / (stem + "_fabric.yaml");
    std::ofstream(r.fabric) << fabric.str();
    r.setup.fabric_file = r.fabric.string();
  }
  if (per_chip) {
    std::string command = "mxcosim run --config " + r.config.filename().string();
    for (std::uint32_t c = 0; c < programs.size(); ++c) {
      r.chip_files.push_back(fs::current_path() / (stem + "_chip" + std::to_string(c) + ".s"));
      command += " --program " + r.chip_files.back().filename().string();
    }
    for (std::uint32_t c = 0; c < programs.size(); ++c) {
      std::ostringstream text;
      text << "# random per-chip program, seed " << seed << ", run by chip " << c << " of "
           << r.config.filename().string() << " (tests/correlation/random_program.h)\n"
           << "# rerun: MXCOSIM_RANDOM_SEED=" << seed
           << " MXCOSIM_RANDOM_SEEDS=1 test_correlation '[random-multichip-per-chip]'\n"
           << "# or: " << command << " --seed " << seed << "\n"
           << format_program(programs[c]);
      std::ofstream(r.chip_files[c]) << text.str();
      r.text += "--- " + r.chip_files[c].filename().string() + "\n" + text.str();
    }
    r.file = r.chip_files.front();
  } else {
    std::ostringstream text;
    text << "# random multi-chip program, seed " << seed << ", every chip of " << r.config.filename().string()
         << " runs it (tests/correlation/random_program.h)\n"
         << "# rerun: MXCOSIM_RANDOM_SEED=" << seed
         << " MXCOSIM_RANDOM_SEEDS=1 test_correlation '[random-multichip]'\n"
         << "# or: mxcosim run --config " << r.config.filename().string() << " --program THIS_FILE --seed " << seed
         << "\n"
         << format_program(programs[0]);
    r.text = text.str();
    std::ofstream(r.file) << r.text;
    r.chip_files = {r.file};
  }
  std::ofstream(r.config) << r.setup.yaml();

  SystemRunOptions o;
  o.system = parse_system_config(r.setup.yaml(), r.config.string());
  o.workload.kind = "program";
  for (const fs::path& f : r.chip_files) o.workload.program_files.push_back(f.string());
  o.seed = seed;
  r.result = run_system(o);
  const SystemRunResult& res = r.result;
  // The mode's point: the chips run programs of their own.
  for (std::size_t c = 1; c < programs.size(); ++c)
    if (programs[c] == programs[0]) r.problems.push_back("chip " + std::to_string(c) + " runs chip 0's program");
  if (!res.error.empty()) r.problems.push_back("run error: " + res.error);
  if (!res.passed) r.problems.push_back("the run did not pass");
  for (std::size_t i = 0; i < std::min<std::size_t>(res.mismatches.size(), 6); ++i)
    r.problems.push_back("mismatch: " + to_string(res.mismatches[i]));
  if (!res.undefined_reads.empty()) r.problems.push_back("reads what no instruction wrote: " + res.undefined_reads[0]);
  if (!res.timing.compared) r.problems.push_back("timing not compared with the model");
  if (res.timing.mismatches) r.problems.push_back(std::to_string(res.timing.mismatches) + " timing mismatches");
  for (const TileReport& t : res.tiles)
    if (t.instructions && t.cycles != t.model_cycles)
      r.problems.push_back(t.name + ": RTL " + std::to_string(t.cycles) + " cycles, model " +
                           std::to_string(t.model_cycles));
  if (res.tiles.size() != r.setup.chips) r.problems.push_back("not one tile report per chip");
  if (r.problems.empty()) {
    for (const fs::path& f : r.chip_files) fs::remove(f);
    fs::remove(r.config);
    if (!r.fabric.empty()) fs::remove(r.fabric);
  }
  return r;
}

void run_multichip_seeds(std::uint64_t first, std::uint64_t count, bool per_chip = false) {
  std::optional<MultiRun> first_failure;
  std::uint64_t failed = 0, sends = 0, passed = 0, redrawn = 0;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    try {
      MultiRun r = run_multichip_seed(seed, per_chip);
      sends += r.stats.chip_sends;
      redrawn += r.stats.shared_redrawn;
      if (r.problems.empty()) {
        ++passed;
        continue;
      }
      ++failed;
      FAIL_CHECK("random multi-chip program seed " << seed << " fails (" << r.problems.front() << "): program in "
                                                   << r.file.string());
      if (!first_failure) first_failure = std::move(r);
    } catch (const std::exception& e) {
      ++failed;
      FAIL_CHECK("random multi-chip program seed " << seed << ": " << e.what());
    }
  }
  INFO(count << " seeds run, " << failed << " failed, " << sends << " sends of data between chips"
             << (per_chip ? ", " + std::to_string(redrawn) + " shared programs drawn again" : std::string()));
  if (first_failure) {
    const MultiRun& r = *first_failure;
    std::ostringstream problems;
    for (const std::string& p : r.problems) problems << "\n  " << p;
    INFO("seed " << r.seed << " on\n" << r.setup.yaml() << "program:\n" << r.text);
    FAIL_CHECK("first failure, seed " << r.seed << ":" << problems.str());
  }
  CHECK(failed == 0);
  CHECK(passed + failed == count);
}

}  // namespace

TEST_CASE("correlation: random valid multi-chip programs through the fabric on the RTL and the model",
          "[random-multichip]") {
  run_multichip_seeds(env_count("MXCOSIM_RANDOM_SEED", 1), env_count("MXCOSIM_RANDOM_SEEDS", 300));
}

TEST_CASE("correlation: random valid per-chip programs through the fabric on the RTL and the model",
          "[random-multichip-per-chip]") {
  run_multichip_seeds(env_count("MXCOSIM_RANDOM_SEED", 1), env_count("MXCOSIM_RANDOM_SEEDS", 100), true);
}

TEST_CASE("correlation: many random valid multi-chip programs", "[.random-multichip-long]") {
  run_multichip_seeds(env_count("MXCOSIM_RANDOM_SEED", 1001), env_count("MXCOSIM_RANDOM_SEEDS", 5000));
}
