// Closed-form GEMM cycles and traffic against hand-computed numbers.
#include <catch2/catch.hpp>

#include "models/mxu/analytic_model.h"
#include "models/mxu/gemm_program.h"

using namespace mxc;

namespace {

AnalyticConfig cfg(std::uint32_t r, std::uint32_t c, std::uint32_t m, std::uint32_t k, std::uint32_t n, bool db) {
  AnalyticConfig a;
  a.rows = r;
  a.cols = c;
  a.m = m;
  a.k = k;
  a.n = n;
  a.double_buffer = db;
  return a;
}

}  // namespace

TEST_CASE("analytic: without double buffering each fold costs 2R + C + M - 2 (SCALE-Sim), then OUTPUT") {
  // 4x4 array, M=10, K=8, N=6: folds = ceil(8/4) * ceil(6/4) = 4, each 8 + 4 + 10 - 2 = 20
  // (SCALE-Sim's count, which it prints less 1); then each of the 2 output tiles' OUTPUT
  // reads its 10 rows out of the accumulators: 80 + 20.
  const AnalyticResult r = analyze_gemm(cfg(4, 4, 10, 8, 6, false));
  CHECK(r.folds == 4);
  CHECK(r.compute_cycles == 100);
  CHECK(r.cycles == 100);
  CHECK(r.scalesim_total_cycles == 79);
  // Non-square: R=8, C=2, M=5, K=9, N=3: folds 2 * 2 = 4, each 16 + 2 + 5 - 2 = 21; 2 outputs of 5.
  CHECK(analyze_gemm(cfg(8, 2, 5, 9, 3, false)).compute_cycles == 84 + 10);
}

TEST_CASE("analytic: double buffering hides each weight shift behind the previous fold's drain, not its stream") {
  // The 4 folds back to back, each a weight shift (R = 4) and its stream (10
  // rows): one scratchpad port serves both. Each of the 2 output tiles then
  // drains (4 + 4 - 2 = 6) and reads its 10 rows out: 4 x 14 + 2 x 16 = 88.
  CHECK(analyze_gemm(cfg(4, 4, 10, 8, 6, true)).compute_cycles == 88);
  // M < R: 2 folds of 4 + 2, one output tile 6 + 2: 20 (26 without double buffering).
  CHECK(analyze_gemm(cfg(4, 4, 2, 8, 4, true)).compute_cycles == 20);
  CHECK(analyze_gemm(cfg(4, 4, 2, 8, 4, false)).compute_cycles == 26);
  // One fold: the same either way (4 + 7 + 6 + 7).
  CHECK(analyze_gemm(cfg(4, 4, 7, 4, 4, true)).compute_cycles == 24);
  CHECK(analyze_gemm(cfg(4, 4, 7, 4, 4, false)).compute_cycles == 24);
}

TEST_CASE("analytic: a fold of fewer rows than the array has columns waits for its weight buffer") {
  // 4x4, M = 2, K = 16 (4 folds), N = 4. Fold j starts its weight shift at
  // s_j and its stream ends at e_j = s_j + 4 + 2; its weights go into the
  // buffer fold j-2 used, free 4 + 4 cycles after that fold's stream ended:
  // s = 0, 6, max(12, 6 + 8) = 14, max(20, 12 + 8) = 20; e_3 = 26, then
  // OUTPUT drains (6) and reads 2 rows: 34 (without the wait 32).
  CHECK(analyze_gemm(cfg(4, 4, 2, 16, 4, true)).compute_cycles == 34);
  // M = 1, K = 36 (9 folds): 4 pairs of 2R + m + max(m, C) = 13, the last
  // fold's R + m = 5, the drain 6 and one row out: 64.
  CHECK(analyze_gemm(cfg(4, 4, 1, 36, 4, true)).compute_cycles == 64);
  // M = 6 in blocks of 4: the 4-row block streams as many rows as the array
  // has columns and never waits (4 x 8 + 6 + 4 = 42); the last, 2-row block
  // is the 34 above: 76.
  AnalyticConfig a = cfg(4, 4, 6, 16, 4, true);
  a.m_block = 4;
  CHECK(analyze_gemm(a).compute_cycles == 76);
  // Without double buffering each fold drains before the next: no wait to add.
  CHECK(analyze_gemm(cfg(4, 4, 2, 16, 4, false)).compute_cycles == 4 * (8 + 4 + 2 - 2) + 2);
}

TEST_CASE("analytic: M blocks of the accumulator depth") {
  // M = 10 in blocks of 4: folds of 4, 4, 2 rows (K = N = 4: one fold each).
  AnalyticConfig a = cfg(4, 4, 10, 4, 4, false);
  a.m_block = 4;
  // 14 + 14 + 12 = 40, and the three outputs 4 + 4 + 2: 50.
  CHECK(analyze_gemm(a).compute_cycles == 50);
  CHECK(analyze_gemm(a).folds == 3);
  // Double buffered: every fold is a whole output tile, whose OUTPUT waits
  // for its drain: the same 50 (3 x 4 + 10 + 3 x 6 + 10).
  a.double_buffer = true;
  CHECK(analyze_gemm(a).compute_cycles == 50);
}

TEST_CASE("analytic: 1024^3 bf16 on 128x128: cycles, traffic, roofline") {
  AnalyticConfig a = cfg(128, 128, 1024, 1024, 1024, false);
  a.dtype = DType::kBf16;
  a.hbm_gbps = 409.6;
  a.clock_mhz = 1000;
  AnalyticResult r = analyze_gemm(a);
  CHECK(r.folds == 64);
  CHECK(r.compute_cycles == 64 * (256 + 128 + 1024 - 2) + 8 * 1024);  // 98176
  CHECK(r.scalesim_total_cycles == 89983);
  // A read once per N fold: 8 * 1024 * 1024 * 2; B once: 1024 * 1024 * 2.
  CHECK(r.hbm_read_bytes == 8ull * 1024 * 1024 * 2 + 1024ull * 1024 * 2);
  CHECK(r.hbm_write_bytes == 1024ull * 1024 * 4);
  // 23068672 bytes at 409.6 GB/s = 56320 ns = 56320 cycles at 1 GHz.
  CHECK(r.memory_bound_cycles == 56320);
  CHECK(r.compute_bound_cycles == 65536);
  CHECK(r.roofline_cycles == 65536);
  a.double_buffer = true;
  r = analyze_gemm(a);
  // 64 folds of 128 + 1024, and 8 output tiles of 254 + 1024: 83952.
  CHECK(r.compute_cycles == 64 * (128 + 1024) + 8 * (254 + 1024));
  CHECK(r.cycles == 83952);
  CHECK(r.utilization == Approx(65536.0 / 83952.0));
  // Memory-bound case: a quarter of the bandwidth -> 225280 cycles.
  a.hbm_gbps = 102.4;
  r = analyze_gemm(a);
  CHECK(r.memory_bound_cycles == 225280);
  CHECK(r.cycles == 225280);
  // A DMA port of one 32-byte beat per cycle: 23068672 / 32 = 720896 cycles.
  a.port_bytes_per_cycle = 32;
  r = analyze_gemm(a);
  CHECK(r.memory_bound_cycles == 720896);
  CHECK(r.cycles == 720896);
}

TEST_CASE("analytic: rows move in whole beats") {
  // int8, 4x4, beat 32, M=3, K=N=4: A 3 rows of 4 B -> 3 x 32; B 4 rows of 4 B -> 4 x 32;
  // C 3 rows of 16 B -> 3 x 32.
  AnalyticConfig a = cfg(4, 4, 3, 4, 4, true);
  a.dtype = DType::kInt8;
  a.beat_bytes = 32;
  const AnalyticResult r = analyze_gemm(a);
  CHECK(r.hbm_read_bytes == 224);
  CHECK(r.hbm_write_bytes == 96);
}

TEST_CASE("analytic: traffic equals what the GEMM compiler's program moves") {
  // Counted independently from the compiled program's DMA instructions.
  const TileGeometry t;  // 4x4, 256 accumulator rows, 1024 scratchpad rows
  for (DType dt : {DType::kInt8, DType::kBf16}) {
    const GemmShape s{300, 10, 7, dt};
    const Program p = compile_gemm(s, place_gemm(s, t), t);
    std::uint64_t rd = 0, wr = 0;
    for (const Instr& in : p) {
      const std::uint64_t row = (in.cols + t.beat_bytes - 1) / t.beat_bytes * t.beat_bytes;
      if (in.op == Opcode::DMA_LOAD) rd += in.rows * row;
      if (in.op == Opcode::DMA_STORE) wr += in.rows * row;
    }
    AnalyticConfig a = cfg(4, 4, 300, 10, 7, true);
    a.dtype = dt;
    a.beat_bytes = t.beat_bytes;
    a.m_block = 256;  // the compiler's M block: min(acc_rows, (sp_rows - 2R) / 3)
    const AnalyticResult r = analyze_gemm(a);
    CHECK(r.hbm_read_bytes == rd);
    CHECK(r.hbm_write_bytes == wr);
  }
}

TEST_CASE("analytic: a multi-chip split adds its compiled collective, rows and tokens one after another") {
  // K split over 2 chips: each chip M=8, K=4, N=8 on 4x4. Each result row
  // crosses as 2 packets (one per N fold) of 16 B + a 64 B header: 160 B,
  // 8 rows: 1280 B. Each of the 2 owners (4 rows each) has 2 output tiles,
  // a 4 B token (68 B on the wire) each, and one "done" token: 5 x 68.
  // 1620 B at 64 GB/s and 1 GHz: 26 cycles (a ring's half of the 256 B
  // payload would be 2).
  AnalyticConfig a = cfg(4, 4, 8, 8, 8, false);
  a.chips = 2;
  a.ici_gbps = 64;
  AnalyticResult r = analyze_gemm(a);
  CHECK(r.folds == 2);  // ceil(4/4) * ceil(8/4)
  CHECK(r.compute_cycles == 2 * (8 + 4 + 8 - 2) + 2 * 8);  // and 2 outputs of 8 rows
  CHECK(r.ici_bytes == 1620);
  CHECK(r.ici_cycles == 26);
  CHECK(r.cycles == 52 + 26);
  // Three chips: every tile's rows cross twice, one chip after the other;
  // the owners have 3, 3 and 2 rows (one tile each per N fold): 2 x (1280 +
  // 6 x 68 + 68) = 3512 B, 55 cycles.
  a.chips = 3;
  r = analyze_gemm(a);
  CHECK(r.ici_bytes == 3512);
  CHECK(r.ici_cycles == 55);
  // Owner blocks of 2 rows: 2 + 2 + 1 = 5 tiles per N fold: 2 x (1280 + 10 x 68 + 68) = 4056 B.
  a.m_block = 2;
  CHECK(analyze_gemm(a).ici_bytes == 4056);
  // N split over 4 chips, N = 16 (4 blocks of 4): round s sends its block of
  // 8 rows (80 B each) to 3 chips, two of them the same way round the ring:
  // 2 x 8 x 4 x 80 = 5120 B; a token per chunk (4 blocks of one 8-row chunk)
  // and two a round (the acknowledgement and the next round's start), less
  // the last round's start: (4 + 7) x 68 = 748. 5868 B: 92 cycles.
  AnalyticConfig b = cfg(4, 4, 8, 8, 16, false);
  b.chips = 4;
  b.split_k = false;
  b.ici_gbps = 64;
  CHECK(analyze_gemm(b).ici_bytes == 5868);
  CHECK(analyze_gemm(b).ici_cycles == 92);
  // A row past the largest payload is cut into packets, each with a header:
  // on 8 columns a row of N = 8 is 32 B, 2 packets of 16 B;
  // 8 rows x (32 + 2 x 64) + (2 tiles + 1 done) x 68 = 1280 + 204.
  AnalyticConfig c = cfg(4, 8, 8, 8, 8, false);
  c.chips = 2;
  c.ici_max_payload_bytes = 16;
  CHECK(analyze_gemm(c).ici_bytes == 1484);
}

TEST_CASE("analytic: bad input names the field") {
  CHECK_THROWS_WITH(analyze_gemm(cfg(0, 4, 1, 1, 1, true)), "analytic model: rows must be >= 1");
  CHECK_THROWS_WITH(analyze_gemm(cfg(4, 4, 1, 0, 1, true)), "analytic model: k must be >= 1");
}

TEST_CASE("analytic: the cost does not grow with the problem, counts past 64 bits are refused") {
  // 10^7 cubed on 128x128, no double buffering: 78125 x 78125 folds of
  // 2 * 128 + 128 + 10^7 - 2 cycles, 78125 outputs of 10^7 rows; 10^21 MACs
  // (past 2^64) / 128^2 bound the array at 61035156250000000 cycles.
  AnalyticConfig a = cfg(128, 128, 10'000'000, 10'000'000, 10'000'000, false);
  a.beat_bytes = 32;
  AnalyticResult r = analyze_gemm(a);
  CHECK(r.folds == 6103515625ull);
  CHECK(r.compute_cycles == 6103515625ull * 10000382 + 781250000000ull);
  CHECK(r.compute_bound_cycles == 61035156250000000ull);
  CHECK(r.utilization == Approx(1e21 / (16384.0 * (6103515625.0 * 10000382.0 + 781250000000.0))));
  // A (256-byte rows) read once per N fold, B once, C written once.
  CHECK(r.hbm_read_bytes == 10'000'000ull * 78125 * 20'000'000 + 200'000'000'000'000ull);
  CHECK(r.hbm_write_bytes == 400'000'000'000'000ull);
  // M blocks of one row: 2^32 - 1 folds of 2 * 1 + 1 + 1 - 2 = 2 cycles and
  // an output of one row each, each reading one int8 element of A and one of B.
  AnalyticConfig b = cfg(1, 1, 4294967295u, 1, 1, false);
  b.dtype = DType::kInt8;
  b.m_block = 1;
  CHECK(analyze_gemm(b).compute_cycles == 3ull * 4294967295u);
  CHECK(analyze_gemm(b).hbm_read_bytes == 2ull * 4294967295u);
  // (2^32 - 1)^3 MACs on 128x128: about 2^82 cycles.
  CHECK_THROWS_WITH(analyze_gemm(cfg(128, 128, 4294967295u, 4294967295u, 4294967295u, true)),
                    "analytic model: m x k x n = 4294967295 x 4294967295 x 4294967295 is too large: its cycles do "
                    "not fit in 64 bits");
}

TEST_CASE("analytic: a collective whose time does not fit in 64 bits is refused") {
  // 4 chips, K split: 3 chips' partials of the 1024 rows cross one after
  // another, each row 8 packets of 512 B + 64 B = 4608 B, with 4 owners x 8
  // N folds tokens and one "done" token of 68 B: 3 x (4718592 + 33 x 68) =
  // 14162508 B; at 1e-9 GB/s (1 B/s) and 1 GHz that is 1.4162508e16 cycles
  // (past 2^53: as exact as a double holds it).
  AnalyticConfig a = cfg(128, 128, 1024, 1024, 1024, true);
  a.chips = 4;
  a.ici_gbps = 1e-9;
  CHECK(analyze_gemm(a).ici_bytes == 14162508);
  CHECK(static_cast<double>(analyze_gemm(a).ici_cycles) == Approx(1.4162508e16));
  a.ici_gbps = 1e-300;
  CHECK_THROWS_WITH(analyze_gemm(a), Catch::StartsWith("analytic model: ici_gbps 1e-300 GB/s is too low: 14162508 "
                                                       "bytes would take more than 2^64 cycles"));
}
