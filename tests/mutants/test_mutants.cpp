// The fast subset of the mutation suite: a GEMM on a 4x4 tile with an
// injected RTL bug must fail, reported by the one checker that can see that
// bug, with its reason; the same run on the tile as designed passes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "bridge/rtl_tile.h"
#include "cosim/system_run.h"
#include "test_mutants.h"
#if MXCOSIM_TEST_OWN_MUTANTS
#include "bridge/verilated_tile.h"
#endif

using namespace mxc;

namespace {

void register_test_mutants() {
  static const bool done = [] {
#define MXCOSIM_TEST_MUTANT_ENTRY(name, cls)                                                               \
  register_rtl_mutant(name, 4, 4, [](const RtlTileConfig& cfg, const TileGeometry& geo, MemoryTarget& mem) { \
    return std::unique_ptr<RtlTile>(std::make_unique<VerilatedTile<cls>>(cfg, geo, mem));                  \
  });
    MXCOSIM_FOR_EACH_TEST_MUTANT(MXCOSIM_TEST_MUTANT_ENTRY)
#undef MXCOSIM_TEST_MUTANT_ENTRY
    return true;
  }();
  (void)done;
}

/// A 4x4 tile on the ideal memory: C(8x8) = A(8x16) x B(16x8), int8; with the
/// model shadow unless random stalls make the RTL slower than the model.
SystemRunOptions gemm(const std::string& mutant, double backpressure = 0.0) {
  register_test_mutants();
  SystemRunOptions o;
  o.system.rows = 4;
  o.system.cols = 4;
  o.system.compare_model = backpressure == 0.0;
  o.system.backpressure = backpressure;
  o.system.watchdog_cycles = 5000;
  o.workload.shape = GemmShape{8, 16, 8, DType::kInt8};
  o.seed = 3;
  o.mutant = mutant;
  return o;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::size_t count_where(const SystemRunResult& r, const std::string& prefix) {
  return static_cast<std::size_t>(std::count_if(r.mismatches.begin(), r.mismatches.end(),
                                                [&](const Mismatch& m) { return starts_with(m.where, prefix); }));
}

}  // namespace

TEST_CASE("mutants: the tile as designed passes the runs the mutants fail") {
  for (double bp : {0.0, 0.3}) {
    const SystemRunResult r = run_system(gemm("", bp));
    INFO("backpressure " << bp << ": " << (r.mismatches.empty() ? r.error : to_string(r.mismatches.front())));
    CHECK(r.passed);
    CHECK(r.error.empty());
    CHECK(r.elements_checked == 64);
    CHECK(r.timing.compared == (bp == 0.0));
  }
}

TEST_CASE("mutants: a mutant not built is refused, naming the ones that are") {
  register_test_mutants();
  SystemRunOptions o = gemm("no_such_mutant");
  try {
    run_system(o);
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("no RTL mutant 'no_such_mutant'") != std::string::npos);
    CHECK(what.find("dropped_accumulate (4x4)") != std::string::npos);
  }
}

// Data: every write-back overwrites. k = 16 on 4 array rows is four folds,
// three of them accumulating, so every result lacks three folds' sums; the
// timing does not change, so only the data scoreboard can see it.
TEST_CASE("mutants: dropped_accumulate is caught by the data scoreboard") {
  const SystemRunResult r = run_system(gemm("dropped_accumulate"));
  REQUIRE_FALSE(r.passed);
  CHECK(r.error.empty());
  REQUIRE_FALSE(r.mismatches.empty());
  CHECK(count_where(r, "data scoreboard") == r.mismatches.size());
  CHECK(r.timing.mismatches == 0);
  CHECK(r.mismatches.front().field == "int32 value");
  CHECK(r.mismatches.front().expected != r.mismatches.front().actual);
}

// Timing: LOAD_WEIGHTS and OUTPUT spend one more cycle in WAIT; the data is
// unchanged, so only the timing correlator can see it. The first instruction
// to differ is the first LOAD_WEIGHTS: same start, end one cycle late.
TEST_CASE("mutants: compute_extra_stall is caught by the timing correlator") {
  const SystemRunResult r = run_system(gemm("compute_extra_stall"));
  REQUIRE_FALSE(r.passed);
  CHECK(r.error.empty());
  CHECK(r.elements_checked == 64);
  CHECK(count_where(r, "data scoreboard") == 0);
  REQUIRE(count_where(r, "timing instruction") > 0);
  const auto first = std::find_if(r.mismatches.begin(), r.mismatches.end(),
                                  [](const Mismatch& m) { return starts_with(m.where, "timing instruction"); });
  INFO(to_string(*first));
  CHECK(starts_with(first->id, "load_weights"));
  CHECK(first->field == "end cycle");
  CHECK(std::stoull(first->actual) == std::stoull(first->expected) + 1);
}

// Handshake: the AR register takes the next burst while ARVALID is high and
// ARREADY low, so the address changes under VALID. Needs backpressure to
// stall AR; the overwritten burst is never answered, so the run also hangs
// (the watchdog's error) but the first, and only, checker mismatch is AR's.
TEST_CASE("mutants: ar_backpressure_ignored is caught by the handshake checker") {
  const SystemRunResult r = run_system(gemm("ar_backpressure_ignored", 0.3));
  INFO(r.error);
  REQUIRE_FALSE(r.passed);
  CHECK(starts_with(r.error, "no progress for 5000 cycles"));
  REQUIRE_FALSE(r.mismatches.empty());
  CHECK(count_where(r, "handshake ") == r.mismatches.size());
  const Mismatch& first = r.mismatches.front();
  INFO(to_string(first));
  CHECK(first.where == "handshake dut.chip0.tile0.axi.ar");
  CHECK(first.field == "payload changed while stalled");
  CHECK(first.actual.find("differs") != std::string::npos);
}

// Protocol: every AR carries a byte offset inside the beat. The AXI slave,
// which serves beat-aligned bursts only, refuses the first one, and the run
// stops there with that refusal as its one record: a run cut short has no
// timing or data comparison.
TEST_CASE("mutants: ar_addr_unaligned is caught by the AXI protocol check") {
  const SystemRunResult r = run_system(gemm("ar_addr_unaligned"));
  INFO(r.error);
  REQUIRE_FALSE(r.passed);
  // An unaligned INCR start is legal AXI4 (A3.4.1), which this slave model does not serve: the
  // run stops as at a violation, but says which it is.
  CHECK(starts_with(r.error, "stopped at an AXI burst legal in AXI4 but unsupported by this slave model: "));
  CHECK(r.mismatch_count == 1);
  REQUIRE(r.mismatches.size() == 1);
  const Mismatch& m = r.mismatches.front();
  INFO(to_string(m));
  CHECK(m.where == "protocol dut.chip0.tile0.axi.ar");
  CHECK(m.field == "address alignment");
  CHECK(std::stoull(m.actual, nullptr, 16) % 32 == 1);  // a 32-byte beat, one byte in
  CHECK(r.elements_checked == 0);
}

namespace {

/// The 4x4 tile as designed, except that its unit-done pins, as the instruction monitor sees
/// them, pulse the ICI unit's bit at cycle kStrayDone although the ICI unit was given nothing
/// (a single-tile GEMM sends no row). A wrapper rather than an RTL mutant (whose build is
/// slow): the monitor's own tests drive its pins; this one drives how the run records it.
class StrayDoneTile final : public RtlTile {
 public:
  static constexpr std::uint64_t kStrayDone = 40;
  explicit StrayDoneTile(std::unique_ptr<RtlTile> tile) : m_tile(std::move(tile)), m_monitor(m_tile->name()) {}

  std::string name() const override { return m_tile->name(); }
  Time next_event_time() const override { return m_tile->next_event_time(); }
  void advance_to(Time now) override {
    const std::uint64_t cycle = m_tile->cycles();
    m_tile->advance_to(now);
    if (cycle == kStrayDone) m_monitor.on_edge(0b100, false, 0, cycle, now);
  }
  void load_program(Program program) override {
    m_monitor.load(program.size());
    m_tile->load_program(std::move(program));
  }
  bool finished() const override { return m_tile->finished(); }
  std::uint64_t cycles() const override { return m_tile->cycles(); }
  std::size_t completed_instructions() const override { return m_tile->completed_instructions(); }
  const std::vector<InstrEvent>& instr_events() const override { return m_tile->instr_events(); }
  const ClockDomain& clock() const override { return m_tile->clock(); }
  std::string state() const override { return m_tile->state(); }
  std::deque<IciRow>& outbound() override { return m_tile->outbound(); }
  void push_inbound(IciRow row) override { m_tile->push_inbound(std::move(row)); }
  std::vector<std::pair<std::string, std::uint64_t>> perf_counters() const override {
    return m_tile->perf_counters();
  }
  bool hardware_error() const override { return m_tile->hardware_error(); }
  const TileGeometry& geometry() const override { return m_tile->geometry(); }
  const Axi4SlaveTransactor& axi() const override { return m_tile->axi(); }
  const HandshakeChecker& handshake() const override { return m_tile->handshake(); }

 private:
  std::unique_ptr<RtlTile> m_tile;
  InstrMonitor m_monitor;
};

}  // namespace

// A unit reporting a completion it was never given threw std::logic_error, which ended the
// run as a usage error: no record, no failure waveform, exit status 2. It fails the run
// instead, with the monitor's record as its one mismatch, as an AXI protocol violation does.
TEST_CASE("mutants: a unit done with nothing pending stops the run with the monitor's record") {
  register_rtl_mutant("stray_done", 4, 4, [](const RtlTileConfig& cfg, const TileGeometry&, MemoryTarget& mem) {
    RtlTileConfig designed = cfg;
    designed.mutant.clear();
    return std::unique_ptr<RtlTile>(std::make_unique<StrayDoneTile>(make_rtl_tile(designed, mem)));
  });
  const SystemRunResult r = run_system(gemm("stray_done"));
  INFO(r.error);
  REQUIRE_FALSE(r.passed);
  CHECK(starts_with(r.error, "stopped at an instruction event no instruction of the program explains: "));
  CHECK(r.mismatch_count == 1);
  REQUIRE(r.mismatches.size() == 1);
  const Mismatch& m = r.mismatches.front();
  INFO(to_string(m));
  CHECK(m.where == "monitor dut.chip0.tile0.ici");
  CHECK(m.id == "cycle 40");
  CHECK(m.field == "done with nothing pending");
  CHECK(m.actual == "ev_done[2] high");
  CHECK(m.time == 40 * 1000);  // rising edge 40 of the 1 GHz tile clock, in ps
  CHECK(r.elements_checked == 0);  // a run cut short compares no data
}

namespace {

/// What catches each mutant (docs/mutants.md): the checker (Mismatch.where
/// prefix) and reason (field) of its first mismatch, and whether the other
/// checkers must stay silent because the bug cannot reach them.
struct Expectation {
  const char* name;
  DType dtype;
  double backpressure;
  const char* where;
  const char* field;
  bool only_this_checker;
  bool two_chips = false;  ///< K-split GEMM over configs/chip2x2_rtl.yaml (ICI traffic) instead of one tile.
};

const Expectation kExpected[] = {
    {"skew_off_by_one", DType::kInt8, 0.0, "data scoreboard", "int32 value", true},
    {"dropped_accumulate", DType::kInt8, 0.0, "data scoreboard", "int32 value", true},
    {"fp32_round_truncate", DType::kBf16, 0.0, "data scoreboard", "fp32 value", true},
    {"int8_unsigned_mul", DType::kInt8, 0.0, "data scoreboard", "int32 value", true},
    {"acc_wrong_row", DType::kInt8, 0.0, "data scoreboard", "int32 value", true},
    {"weight_select_late", DType::kInt8, 0.0, "data scoreboard", "int32 value", true},
    // The model's write enables the byte the mutant leaves out: the timing correlator's byte mask too.
    {"wstrb_short", DType::kInt8, 0.0, "data scoreboard", "int32 value", false},
    {"dispatch_wait_ignored", DType::kInt8, 0.0, "data scoreboard", "int32 value", false},
    {"compute_extra_stall", DType::kInt8, 0.0, "timing instruction", "end cycle", true},
    {"dma_issue_bubble", DType::kInt8, 0.0, "timing memory", "issue cycle", true},
    {"ar_backpressure_ignored", DType::kInt8, 0.3, "handshake dut.chip0.tile0.axi.ar", "payload changed while stalled",
     true},
    {"w_valid_withdrawn", DType::kInt8, 0.3, "handshake dut.chip0.tile0.axi.w", "valid withdrawn before handshake",
     false},
    {"r_beat_lost", DType::kInt8, 0.0, "data scoreboard", "int32 value", true},
    {"ar_addr_unaligned", DType::kInt8, 0.0, "protocol dut.chip0.tile0.axi.ar", "address alignment", true},
    {"aw_addr_unaligned", DType::kInt8, 0.0, "protocol dut.chip0.tile0.axi.aw", "address alignment", true},
    {"wlast_missing", DType::kInt8, 0.0, "protocol dut.chip0.tile0.axi.w", "WLAST", true},
    // The slave takes the burst reset left valid, with the random address it holds: a protocol
    // record too, as a rule the address breaks.
    {"valid_in_reset", DType::kInt8, 0.0, "handshake dut.chip0.tile0.axi.ar", "valid during reset", false},
    // Each chip's partial sums go to itself instead of the other chip: wrong
    // sums (data) too, so the first record must be the ICI one.
    {"ici_wrong_chip", DType::kInt8, 0.0, "timing ici chip0.tile0", "destination chip", false, true},
};

bool built(const std::string& name) {
  for (const std::string& n : rtl_tile_mutants())
    if (starts_with(n, name + " ")) return true;
  return false;
}

}  // namespace

// The whole suite where the build holds every mutant (nightly: configure with
// -DMXCOSIM_RTL_MUTANTS, docs/mutants.md); the default build checks the fast
// subset it verilates above. A 16x16x16 GEMM, two seeds.
TEST_CASE("mutants: every built mutant is caught by its checker with its reason") {
  register_test_mutants();
  std::size_t checked = 0;
  for (const Expectation& e : kExpected) {
    if (!built(e.name)) continue;
    for (std::uint64_t seed : {1, 2}) {
      SystemRunOptions o = gemm(e.name, e.backpressure);
      o.workload.shape = GemmShape{16, 16, 16, e.dtype};
      if (e.two_chips) {
        o.system = load_system_config(std::string(MXCOSIM_SOURCE_DIR) + "/configs/chip2x2_rtl.yaml");
        o.workload.split = "k";
      }
      o.seed = seed;
      const SystemRunResult r = run_system(o);
      INFO(e.name << " seed " << seed << ": " << r.error << " / "
                  << (r.mismatches.empty() ? "no mismatch" : to_string(r.mismatches.front())));
      REQUIRE_FALSE(r.passed);
      const auto first = std::find_if(r.mismatches.begin(), r.mismatches.end(),
                                      [&](const Mismatch& m) { return starts_with(m.where, e.where); });
      REQUIRE(first != r.mismatches.end());
      if (*e.field) CHECK(first->field == e.field);
      if (e.two_chips) CHECK(first == r.mismatches.begin());  // the earliest record of all
      // Silent others: every mismatch comes from the same checker kind.
      const std::string kind = std::string(e.where).substr(0, std::string(e.where).find(' '));
      if (e.only_this_checker) CHECK(count_where(r, kind + " ") == r.mismatches.size());
    }
    ++checked;
  }
  // The fast subset is always there, from mxcosim_rtl or verilated by this test.
  CHECK(checked >= 4);
}
