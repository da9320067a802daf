// Two-layer MLP program on the functional reference against a host
// computation: GEMM, ReLU + conversion, GEMM.
#include <catch2/catch.hpp>

#include "models/mxu/functional_tile.h"
#include "models/mxu/mlp_program.h"
#include "reference_helpers.h"

using namespace mxc;

namespace {

struct MlpRun {
  std::vector<std::uint16_t> hidden;
  std::vector<std::uint32_t> c;
  MlpOperands ops;
};

MlpRun run_mlp(const MlpShape& s, const TileGeometry& t, std::uint64_t seed) {
  const MlpLayout l = place_mlp(s, t);
  MlpRun run;
  run.ops = random_mlp_operands(s, seed);
  SparseMemory hbm;
  store_mlp_operands(s, l, run.ops, hbm);
  FunctionalTile tile(t, hbm);
  tile.run(compile_mlp(s, l, t));
  run.hidden = load_mlp_hidden(s, l, hbm);
  run.c = load_mlp_result(s, l, hbm);
  return run;
}

TileGeometry geometry(std::uint32_t r, std::uint32_t c, std::uint32_t acc_rows, std::uint32_t sp_rows) {
  TileGeometry t;
  t.rows = r;
  t.cols = c;
  t.acc_rows = acc_rows;
  t.sp_rows = sp_rows;
  return t;
}

}  // namespace

TEST_CASE("mlp: int8 layer 1 ReLU + shift to int8, layer 2 int32, equals the host computation") {
  // Sizes that are not multiples of the array; small accumulators force M
  // blocks. Second geometry: rows = 2 x cols, H tiles stored at beat offsets.
  TileGeometry narrow_beat = geometry(8, 4, 16, 128);
  narrow_beat.beat_bytes = 4;
  for (const auto& t : {geometry(4, 4, 8, 64), narrow_beat}) {
    MlpShape s;
    s.m = 19;
    s.k = 13;
    s.hidden = 10;
    s.n = 7;
    s.dtype = DType::kInt8;
    s.shift = mlp_default_shift(s.k);
    const MlpRun run = run_mlp(s, t, 11);
    auto h32 = testing::int8_gemm(run.ops.x, run.ops.w1, s.m, s.k, s.hidden);
    std::vector<std::uint16_t> h(h32.size());
    int zero = 0;
    for (std::size_t i = 0; i < h32.size(); ++i) {
      const std::int8_t v = int32_to_int8(relu_int32(static_cast<std::int32_t>(h32[i])), s.shift);
      h[i] = static_cast<std::uint8_t>(v);
      zero += v == 0;
    }
    CHECK(run.hidden == h);
    CHECK(run.c == testing::int8_gemm(h, run.ops.w2, s.m, s.hidden, s.n));
    // The data exercise both ReLU and the non-trivial range.
    CHECK(zero > 0);
    CHECK(zero < static_cast<int>(h.size()));
  }
}

TEST_CASE("mlp: an array whose H tiles would start mid-beat is rejected") {
  MlpShape s;
  s.m = 4;
  s.k = 4;
  s.hidden = 8;
  s.n = 4;
  CHECK_THROWS_WITH(validate(s, geometry(8, 4, 16, 128)), Catch::Contains("rows == cols"));
}

TEST_CASE("mlp: the default int8 shift grows with k") {
  CHECK(mlp_default_shift(1) == 7);
  CHECK(mlp_default_shift(13) == 9);    // ceil(log2 13) = 4 -> 7 + 2
  CHECK(mlp_default_shift(1024) == 12); // 10 -> 7 + 5
  CHECK(mlp_default_shift(65536) == 15);
}

TEST_CASE("mlp: bf16 layer 1 ReLU + round to bf16, layer 2 fp32, equals the host computation") {
  const TileGeometry t = geometry(4, 4, 8, 64);
  MlpShape s;
  s.m = 11;
  s.k = 9;
  s.hidden = 6;
  s.n = 5;
  s.dtype = DType::kBf16;
  const MlpRun run = run_mlp(s, t, 5);
  const auto h32 = testing::bf16_gemm_folded(run.ops.x, run.ops.w1, s.m, s.k, s.hidden, t.rows);
  std::vector<std::uint16_t> h(h32.size());
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = fp32_to_bf16(relu_fp32(h32[i]));
  CHECK(run.hidden == h);
  CHECK(run.c == testing::bf16_gemm_folded(h, run.ops.w2, s.m, s.hidden, s.n, t.rows));
}

TEST_CASE("mlp: the layer-2 loads wait for the layer-1 stores") {
  const TileGeometry t = geometry(4, 4, 8, 64);
  MlpShape s;
  s.m = 8;
  s.k = 4;
  s.hidden = 4;
  s.n = 4;
  const MlpLayout l = place_mlp(s, t);
  const Program p = compile_mlp(s, l, t);
  // The first DMA_LOAD from H comes after the last DMA_STORE to H and waits
  // for every DMA instruction before it.
  std::size_t last_h_store = 0, first_h_load = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const bool in_h = p[i].hbm_addr >= l.h.base && p[i].hbm_addr < l.h.base + l.h.bytes();
    if (p[i].op == Opcode::DMA_STORE && in_h) last_h_store = i;
    if (p[i].op == Opcode::DMA_LOAD && in_h && first_h_load == 0) first_h_load = i;
  }
  REQUIRE(first_h_load > last_h_store);
  CHECK(p[first_h_load].wait_dma == 0);
}

TEST_CASE("mlp: bad shapes name the field") {
  MlpShape s;
  s.m = 1;
  s.k = 1;
  s.hidden = 0;
  s.n = 1;
  CHECK_THROWS_WITH(validate(s, TileGeometry{}), "mlp: hidden must be >= 1");
  s.hidden = 65537;  // it was "gemm: m, k and n must each be <= 65536"
  CHECK_THROWS_WITH(validate(s, TileGeometry{}), "mlp: hidden must be <= 65536");
  s.hidden = 65536;
  CHECK_NOTHROW(validate(s, TileGeometry{}));
}
