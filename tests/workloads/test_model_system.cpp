// The compiled workloads on the performance model (ModelTile): the
// synchronisation protocols complete under real timing, traffic matches the
// programs, and runs are deterministic.
#include <catch2/catch.hpp>

#include "models/mxu/analytic_model.h"
#include "models/mxu/gemm_program.h"
#include "models/mxu/mlp_program.h"
#include "models/mxu/multichip_program.h"
#include "models/mxu/workloads/model_system.h"

using namespace mxc;

namespace {

TileGeometry tile4() {
  TileGeometry t;
  t.acc_rows = 16;
  t.sp_rows = 128;
  return t;
}

std::uint64_t counter(const ModelSystemResult& r, const std::string& name) {
  for (const auto& [n, v] : r.counters)
    if (n == name) return v;
  FAIL("no counter " << name);
  return 0;
}

/// DMA bytes a program moves, counted from its instructions: loads in whole
/// beats, stores as the bytes written (the last beat is masked).
std::pair<std::uint64_t, std::uint64_t> dma_bytes(const std::vector<Program>& ps, std::uint32_t beat) {
  std::uint64_t rd = 0, wr = 0;
  for (const auto& p : ps)
    for (const Instr& in : p) {
      if (in.op == Opcode::DMA_LOAD) rd += std::uint64_t{in.rows} * ((in.cols + beat - 1) / beat * beat);
      if (in.op == Opcode::DMA_STORE) wr += std::uint64_t{in.rows} * ((in.cols + beat - 1) / beat * beat);
    }
  return {rd, wr};
}

}  // namespace

TEST_CASE("model system: the MLP program runs to completion with the program's traffic") {
  const TileGeometry t = tile4();
  MlpShape s{37, 21, 13, 9, DType::kInt8, 9};
  const std::vector<Program> ps = {compile_mlp(s, place_mlp(s, t), t)};
  ModelSystemConfig cfg;
  cfg.geometry = t;
  const ModelSystemResult r = run_model_system(ps, cfg);
  REQUIRE(r.finished);
  const auto [rd, wr] = dma_bytes(ps, t.beat_bytes);
  CHECK(r.bytes_read == rd);
  CHECK(r.bytes_written == wr);
  CHECK(counter(r, "instructions") == ps[0].size());
  // Every MATMUL row enters the array once: array_active counts them.
  std::uint64_t vectors = 0;
  for (const Instr& in : ps[0])
    if (in.op == Opcode::MATMUL) vectors += in.rows;
  CHECK(counter(r, "array_active") == vectors);
}

TEST_CASE("model system: K-split and N-split programs finish over the ICI fabric, deterministically") {
  const TileGeometry t = tile4();
  for (ChipSplit split : {ChipSplit::kK, ChipSplit::kN}) {
    for (std::uint32_t chips : {2u, 3u}) {
      INFO("chips " << chips << (split == ChipSplit::kK ? " k" : " n"));
      MultiChipGemm g{{30, 24, 20, DType::kBf16}, chips, split};
      const auto ps = compile_multichip(g, plan_multichip(g, t), t);
      ModelSystemConfig cfg;
      cfg.geometry = t;
      cfg.memory_latency_ps = 50'000;
      const ModelSystemResult a = run_model_system(ps, cfg);
      REQUIRE(a.finished);
      const auto [rd, wr] = dma_bytes(ps, t.beat_bytes);
      CHECK(a.bytes_read == rd);
      CHECK(a.bytes_written == wr);
      std::uint64_t instructions = 0;
      for (const auto& p : ps) instructions += p.size();
      CHECK(counter(a, "instructions") == instructions);
      CHECK(counter(a, "stall_ici_wait") > 0);
      const ModelSystemResult b = run_model_system(ps, cfg);
      CHECK(b.chip_cycles == a.chip_cycles);
      CHECK(b.sim_time_ps == a.sim_time_ps);
    }
  }
}

TEST_CASE("model system: programs that wait forever are reported, not hung") {
  Instr wait;
  wait.op = Opcode::ICI_WAIT;
  wait.rows = 1;
  ModelSystemConfig cfg;
  cfg.geometry = tile4();
  const ModelSystemResult r = run_model_system({{wait}, {}}, cfg);
  CHECK_FALSE(r.finished);
  CHECK_THAT(r.error, Catch::StartsWith("chip 0 did not finish"));
}

TEST_CASE("model system: a DMA that outlasts the watchdog is no hang while its memory answers") {
  // 64 rows, one request in flight answered 2 us later each: 128 000 cycles in one
  // instruction, past a 20 000-cycle watchdog; one shorter than an answer still stops it.
  Instr load;
  load.op = Opcode::DMA_LOAD;
  load.rows = 64;
  load.cols = 4;
  load.hbm_addr = 0x10000;
  load.hbm_stride = 32;
  ModelSystemConfig cfg;
  cfg.geometry = tile4();
  cfg.memory_latency_ps = 2'000'000;
  cfg.memory_outstanding = 1;
  cfg.watchdog_cycles = 20'000;
  const ModelSystemResult r = run_model_system({{load}}, cfg);
  INFO(r.error);
  CHECK(r.finished);
  CHECK(r.cycles > 64 * 2000);
  // The watchdog waits no less than twice an answer (there is no option to raise it): 1 500
  // cycles had stopped this healthy run as hung.
  cfg.watchdog_cycles = 1500;
  CHECK(run_model_system({{load}}, cfg).cycles == r.cycles);
  // A program that never ends still stops, after twice the 2 000-cycle answer, and says so.
  Instr wait;
  wait.op = Opcode::ICI_WAIT;
  wait.rows = 1;
  const ModelSystemResult hung = run_model_system({{load, wait}}, cfg);
  CHECK_FALSE(hung.finished);
  CHECK_THAT(hung.error, Catch::Contains("(no progress for 4000 cycles)"));
}

TEST_CASE("model system: a fast clock or a slow link is no hang while rows travel the fabric") {
  // A hop takes 1 us with no traffic (500 ns router + 500 ns link): 200 000 cycles, the
  // watchdog's, at 200 GHz. And at 0.001 GB/s a 64-byte row takes 64 us on the wire.
  const TileGeometry t = tile4();
  MultiChipGemm g{{16, 16, 16, DType::kInt8}, 2, ChipSplit::kK};
  const auto ps = compile_multichip(g, plan_multichip(g, t), t);
  for (const auto& [mhz, gbps] : {std::pair{200'000.0, 45.0}, {1e6, 45.0}, {1000.0, 0.001}}) {
    INFO(mhz << " MHz, " << gbps << " GB/s");
    ModelSystemConfig cfg;
    cfg.geometry = t;
    cfg.clock_mhz = mhz;
    cfg.ici_gbps = gbps;
    cfg.memory_latency_ps = 0;
    cfg.watchdog_cycles = 1000;  // below one row's trip even at 1 GHz and 45 GB/s (1 us)
    const ModelSystemResult r = run_model_system(ps, cfg);
    INFO(r.error);
    CHECK(r.finished);
    CHECK(r.sim_time_ps > 1'000'000);  // at least one row went over a hop
  }
}

TEST_CASE("model system: the analytic array cycles bound a GEMM's compute from below, tightly") {
  // The compiled GEMM without its DMA instructions (their waits then pass at
  // once): the compute unit's LOAD_WEIGHTS, MATMUL and OUTPUT alone, on the
  // performance model, against the closed form with the compiler's M blocks.
  // Above it by no more than the dispatcher's few cycles an instruction.
  struct Case {
    std::uint32_t r, c, acc, m, k, n;
  };
  // The last three stream fewer rows per fold than the array has columns, so
  // every second LOAD_WEIGHTS waits for its buffer's fold to leave the array:
  // a decode-sized M of 1 or 8, and a last M block of 4 rows after two of 8.
  for (const Case& s : {Case{4, 4, 16, 16, 16, 16}, Case{4, 4, 16, 37, 21, 13}, Case{8, 8, 32, 100, 40, 24},
                        Case{16, 8, 64, 8, 64, 40}, Case{8, 16, 8, 64, 8, 64}, Case{32, 32, 8, 1, 512, 32},
                        Case{32, 32, 8, 20, 256, 32}, Case{128, 128, 256, 8, 4096, 4096}}) {
    TileGeometry t;
    t.rows = s.r;
    t.cols = s.c;
    t.acc_rows = s.acc;
    t.sp_rows = 1024;
    const GemmShape shape{s.m, s.k, s.n, DType::kInt8};
    Program compute;
    for (const Instr& in : compile_gemm(shape, place_gemm(shape, t), t))
      if (in.op != Opcode::DMA_LOAD && in.op != Opcode::DMA_STORE) compute.push_back(in);
    ModelSystemConfig cfg;
    cfg.geometry = t;
    const ModelSystemResult r = run_model_system({compute}, cfg);
    REQUIRE(r.finished);
    AnalyticConfig a;
    a.rows = s.r;
    a.cols = s.c;
    a.m = s.m;
    a.k = s.k;
    a.n = s.n;
    a.m_block = gemm_m_block(t);  // the compiler's M block
    a.hbm_gbps = 0;
    const std::uint64_t closed = analyze_gemm(a).compute_cycles;
    INFO(s.r << "x" << s.c << " acc " << s.acc << ", " << s.m << "x" << s.k << "x" << s.n << ": model " << r.cycles
              << ", closed form " << closed << ", " << compute.size() << " instructions");
    CHECK(closed <= r.cycles);
    CHECK(r.cycles <= closed + 4 * compute.size());
  }
}

TEST_CASE("model system: where the links are slow the analytic collective is the compiled one's time") {
  // K and N splits on 2 to 4 chips with ICI links of 0.1 GB/s, where the
  // collective's bytes dominate the hops' latency: the performance model's
  // cycles are at most 5 % above the closed form's (docs/workloads.md). The
  // closed form's M blocks are the multi-chip compiler's.
  struct Case {
    ChipSplit split;
    std::uint32_t chips, n;
  };
  for (const Case& s : {Case{ChipSplit::kK, 2, 64}, Case{ChipSplit::kK, 3, 64}, Case{ChipSplit::kK, 4, 64},
                        Case{ChipSplit::kN, 2, 64}, Case{ChipSplit::kN, 3, 96}, Case{ChipSplit::kN, 4, 128}}) {
    TileGeometry t;
    t.rows = 32;
    t.cols = 32;
    const MultiChipGemm g{{128, 64, s.n, DType::kBf16}, s.chips, s.split};
    ModelSystemConfig cfg;
    cfg.geometry = t;
    cfg.ici_gbps = 0.1;
    const ModelSystemResult r = run_model_system(compile_multichip(g, plan_multichip(g, t), t), cfg);
    REQUIRE(r.finished);
    AnalyticConfig a;
    a.rows = t.rows;
    a.cols = t.cols;
    a.m = g.shape.m;
    a.k = g.shape.k;
    a.n = g.shape.n;
    a.m_block = multichip_m_block(t);
    a.beat_bytes = t.beat_bytes;
    a.port_bytes_per_cycle = t.beat_bytes;
    a.chips = s.chips;
    a.split_k = s.split == ChipSplit::kK;
    a.ici_gbps = cfg.ici_gbps;
    const std::uint64_t closed = analyze_gemm(a).cycles;
    INFO((s.split == ChipSplit::kK ? "k" : "n") << " split on " << s.chips << " chips: model " << r.cycles
                                                << ", closed form " << closed);
    CHECK(closed <= r.cycles);
    CHECK(static_cast<double>(r.cycles) <= 1.05 * static_cast<double>(closed));
  }
}
