// Random valid programs (random_program.h) on the verilated tile, the
// performance model and the functional reference. Each seed's program runs
// on the RTL and on the model, each on its own memory of the same kind
// (ideal, of a latency and a limit on requests in flight drawn from the
// seed; the memory sometimes registered first, outbound rows sometimes taken
// late), and the runs must agree exactly (check_same: instruction events,
// memory requests and byte masks, ICI rows, counters, cycles). The RTL's
// memory must then hold, byte for byte, what the functional reference leaves
// in the same initial memory: the image `mxcosim run --program FILE --seed S`
// starts from (random bytes where loads read, poison where stores write).
//
// Every seed runs; then each failing one is named (its program stays in the
// working directory as random_RxC_seedS.s, with the commands that rerun it
// in its comments) and the first is shown in detail: seed, program, what
// differs. MXCOSIM_RANDOM_SEED (first seed) and MXCOSIM_RANDOM_SEEDS (how
// many) choose the seeds of both test cases: the default one runs 200 seeds
// on 4x4 and a quarter as many on one other verilated size (8x8);
// "[.random-long]" runs 1000 on each unless told otherwise.
#include <catch2/catch.hpp>

#include <algorithm>
#include <exception>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bridge/rtl_tile.h"
#include "cosim/system_config.h"
#include "cosim/workload.h"
#include "models/core/sparse_memory.h"
#include "models/mxu/assembler.h"
#include "models/mxu/functional_system.h"
#include "tests/correlation/random_program.h"
#include "tests/correlation/run_harness.h"

using namespace mxc;
using namespace mxc::corr;

namespace {

/// The memory and wiring seed `seed` runs on.
struct Setup {
  bool hbm = false;  ///< The HBM model (hbm2), else an ideal memory.
  Time latency_ps = 0;
  std::uint32_t outstanding = 64;
  Wiring wiring;

  MemorySpec memory() const { return hbm ? hbm_memory("hbm2.yaml") : ideal(latency_ps, outstanding); }
  std::string describe() const {
    std::ostringstream s;
    if (hbm)
      s << "HBM model (hbm2)";
    else
      s << "ideal memory " << latency_ps << " ps, " << outstanding << " in flight";
    s << ", memory registered first " << wiring.memory_first << ", outbound rows taken every "
      << wiring.drain_every << " cycles";
    return s.str();
  }
  /// The memory options of `mxcosim run` for it.
  std::string run_options() const {
    std::ostringstream s;
    if (hbm)
      s << "--config configs/tile8_hbm2.yaml";
    else
      s << "--mem-latency-ns " << latency_ps / 1000.0 << " --mem-outstanding " << outstanding;
    return s.str();
  }
};

Setup setup_for(std::uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + 1);
  static constexpr Time kLatencies[] = {0, 3'000, 20'000, 100'000, 250'000};
  static constexpr std::uint32_t kOutstanding[] = {64, 64, 8, 2};
  Setup s;
  s.hbm = rng() % 8 == 0;
  s.latency_ps = kLatencies[rng() % std::size(kLatencies)];
  s.outstanding = kOutstanding[rng() % std::size(kOutstanding)];
  s.wiring.memory_first = rng() % 5 == 0;
  s.wiring.drain_every = rng() % 4 != 0 ? 1 : rng() % 2 ? 3 : 11;
  return s;
}

std::string hex_bytes(const std::vector<std::uint8_t>& b) {
  std::ostringstream s;
  for (std::size_t i = 0; i < b.size(); ++i)
    s << (i ? " " : "") << std::hex << std::setw(2) << std::setfill('0') << +b[i];
  return s.str();
}

/// Every byte of the pages `expected` holds or a write of `log` touched, in `actual` against
/// `expected`: each run of differing bytes (at most 16 shown) as "@0xADDR expected .. got ..".
std::vector<std::string> compare_memory(const SparseMemory& expected, const MemoryTarget& actual, const RunLog& log) {
  constexpr std::uint64_t kPage = SparseMemory::kPageBytes;
  std::vector<std::uint64_t> pages;
  expected.for_each_page([&](std::uint64_t base, std::span<const std::uint8_t>) { pages.push_back(base); });
  for (const LoggedRequest& r : log.requests)
    if (r.write && r.bytes)
      for (std::uint64_t p = r.addr / kPage; p <= (r.addr + r.bytes - 1) / kPage; ++p) pages.push_back(p * kPage);
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
  std::vector<std::string> out;
  std::vector<std::uint8_t> want(kPage), got(kPage);
  for (const std::uint64_t base : pages) {
    expected.read(base, want);
    actual.backdoor_read(base, got);
    for (std::uint64_t i = 0; i < kPage;) {
      if (want[i] == got[i]) {
        ++i;
        continue;
      }
      std::uint64_t j = i;
      while (j < kPage && want[j] != got[j]) ++j;
      const std::uint64_t n = std::min<std::uint64_t>(j - i, 16);
      std::ostringstream s;
      s << "@0x" << std::hex << base + i << std::dec << " (" << j - i << " bytes) expected "
        << hex_bytes({want.begin() + i, want.begin() + i + n}) << ", got "
        << hex_bytes({got.begin() + i, got.begin() + i + n});
      out.push_back(s.str());
      i = j;
    }
  }
  return out;
}

/// One seed's program on the rows x cols tile and what its runs showed.
struct SeedRun {
  std::uint32_t rows = 0, cols = 0;
  std::uint64_t seed = 0;
  Setup setup;
  std::string text;           ///< The program file's text.
  std::filesystem::path file;
  Program program;
  std::vector<std::string> undefined;  ///< Reads of what no instruction wrote (the reference's notes).
  Pair pair;
  std::vector<std::string> data;       ///< The RTL's memory against the reference's.

  bool passed() const { return undefined.empty() && same_runs(pair) && !pair.rtl_error && data.empty(); }
};

/// Runs seed `seed` on the rows x cols tile: its program on the RTL and the model, and the
/// reference on the same memory. The program file stays in the working directory when it fails.
SeedRun run_seed(std::uint32_t rows, std::uint32_t cols, std::uint64_t seed) {
  namespace fs = std::filesystem;
  SeedRun r;
  r.rows = rows;
  r.cols = cols;
  r.seed = seed;
  r.setup = setup_for(seed);
  const TileGeometry geo = rtl_tile_geometry(rows, cols);
  RandomProgramOptions options;
  options.high_addresses = !r.setup.hbm;
  r.program = random_program(seed, geo, options);
  const std::string size = std::to_string(rows) + "x" + std::to_string(cols);
  std::ostringstream text;
  text << "# random program, seed " << seed << ", " << size << " tile, " << r.setup.describe()
       << " (tests/correlation/random_program.h)\n"
       << "# RTL against the model: MXCOSIM_RANDOM_SEED=" << seed
       << " MXCOSIM_RANDOM_SEEDS=1 test_correlation '[random]'\n"
       << "# RTL against the reference: mxcosim run --program THIS_FILE --rows " << rows << " --cols " << cols
       << " --seed " << seed << " " << r.setup.run_options() << "\n"
       << format_program(r.program);
  r.text = text.str();
  r.file = fs::current_path() / ("random_" + size + "_seed" + std::to_string(seed) + ".s");
  {
    std::ofstream f(r.file);
    f << r.text;
  }

  // The memory `mxcosim run --program FILE --seed S` starts from, from the file it reads.
  SystemConfig cfg = default_system_config();
  cfg.rows = rows;
  cfg.cols = cols;
  WorkloadSpec spec;
  spec.kind = "program";
  spec.program_files = {r.file.string()};
  const Workload work = build_workload(spec, cfg, geo, seed);
  if (work.programs.at(0).at(0) != r.program) throw std::logic_error("the program file reads back differently");
  SparseMemory image = work.images.at(0).clone();
  poison_stores(image, {r.program}, geo.beat_bytes);

  FunctionalSystem ref(geo, 1);
  image.for_each_page([&](std::uint64_t a, std::span<const std::uint8_t> b) { ref.memory(0).write(a, b); });
  ref.run({r.program});
  r.undefined = ref.tile(0).undefined_reads();

  PairOptions o;
  o.wiring = r.setup.wiring;
  o.rtl_seed = seed;
  o.image = &image;
  o.rtl_memory = [&](const MemoryTarget& mem, const RunLog& log) { r.data = compare_memory(ref.memory(0), mem, log); };
  r.pair = run_pair(rows, cols, r.setup.memory(), r.program, o);
  if (r.passed()) fs::remove(r.file);
  return r;
}

/// Asserts what run_seed found, naming the seed and showing the program.
void check_seed(const SeedRun& r) {
  INFO("random program seed " << r.seed << " on " << r.rows << "x" << r.cols << ", " << r.setup.describe());
  INFO("program (also in " << r.file.string() << "):\n" << r.text);
  INFO("reads of what no instruction wrote: " << (r.undefined.empty() ? "none" : r.undefined.front()));
  CHECK(r.undefined.empty());
  check_same(r.pair, r.program);
  CHECK_FALSE(r.pair.rtl_error);
  std::ostringstream diffs;
  for (std::size_t i = 0; i < std::min<std::size_t>(r.data.size(), 8); ++i) diffs << "\n  " << r.data[i];
  INFO("RTL memory against the reference: " << r.data.size() << " differing runs of bytes" << diffs.str());
  CHECK(r.data.empty());
}

/// The other verilated size beside 4x4 (8x8 when there is one), or none.
std::optional<std::pair<std::uint32_t, std::uint32_t>> other_size() {
  const auto sizes = rtl_tile_sizes();
  if (std::find(sizes.begin(), sizes.end(), std::pair{8u, 8u}) != sizes.end()) return std::pair{8u, 8u};
  for (const auto& s : sizes)
    if (s != std::pair{4u, 4u}) return s;
  return std::nullopt;
}

/// Runs every seed (on 4x4, then on the other size), then asserts on the failing ones: each
/// named, the first in detail (its program, what differs).
void run_seeds(std::uint64_t first, std::uint64_t count_4x4, std::uint64_t count_other) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sizes = {{4, 4}};
  const auto other = other_size();
  if (other)
    sizes.push_back(*other);
  else
    WARN("no RTL of another size than 4x4 in this build (MXCOSIM_RTL_SIZES): only 4x4 runs");
  std::optional<SeedRun> first_failure;
  std::uint64_t ran = 0, failed = 0;
  for (const auto& [rows, cols] : sizes) {
    const std::uint64_t count = rows == 4 && cols == 4 ? count_4x4 : count_other;
    for (std::uint64_t seed = first; seed < first + count; ++seed) {
      ++ran;
      try {
        SeedRun r = run_seed(rows, cols, seed);
        if (r.passed()) continue;
        ++failed;
        FAIL_CHECK("random program seed " << seed << " on " << rows << "x" << cols << " fails: program in "
                                          << r.file.string());
        if (!first_failure) first_failure = std::move(r);
      } catch (const std::exception& e) {
        ++failed;
        FAIL_CHECK("random program seed " << seed << " on " << rows << "x" << cols << ": " << e.what());
      }
    }
  }
  INFO(ran << " seeds run, " << failed << " failed");
  if (first_failure) check_seed(*first_failure);
  CHECK(failed == 0);
}

}  // namespace

TEST_CASE("correlation: random valid programs on the RTL against the model and the reference", "[random]") {
  const std::uint64_t first = env_count("MXCOSIM_RANDOM_SEED", 1);
  const std::uint64_t count = env_count("MXCOSIM_RANDOM_SEEDS", 200);
  run_seeds(first, count, (count + 3) / 4);
}

TEST_CASE("correlation: many random valid programs", "[.random-long]") {
  const std::uint64_t first = env_count("MXCOSIM_RANDOM_SEED", 1001);
  const std::uint64_t count = env_count("MXCOSIM_RANDOM_SEEDS", 1000);
  run_seeds(first, count, count);
}
