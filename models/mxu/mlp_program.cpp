#include "models/mxu/mlp_program.h"

#include <stdexcept>
#include <string>

#include "models/mxu/gemm_program.h"
#include "models/mxu/workloads/fold_emitter.h"

namespace mxc {

namespace {

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }
std::uint32_t elem_bytes(DType t) { return t == DType::kBf16 ? 2 : 1; }

void put_matrix(const MatrixLayout& ml, const std::vector<std::uint16_t>& v, SparseMemory& mem) {
  for (std::uint32_t i = 0; i < ml.rows; ++i)
    for (std::uint32_t j = 0; j < ml.cols; ++j) {
      const std::uint16_t e = v[std::size_t{i} * ml.cols + j];
      const std::uint8_t bytes[2] = {static_cast<std::uint8_t>(e), static_cast<std::uint8_t>(e >> 8)};
      mem.write(ml.addr(i, j), std::span<const std::uint8_t>(bytes, ml.elem_bytes));
    }
}

}  // namespace

std::uint8_t mlp_default_shift(std::uint32_t k) {
  unsigned log2k = 0;
  while ((1ull << log2k) < k) ++log2k;
  return static_cast<std::uint8_t>(std::min(31u, 7 + (log2k + 1) / 2));
}

void validate(const MlpShape& s, const TileGeometry& t) {
  t.validate();
  if (s.m == 0) throw std::invalid_argument("mlp: m must be >= 1");
  if (s.k == 0) throw std::invalid_argument("mlp: k must be >= 1");
  if (s.hidden == 0) throw std::invalid_argument("mlp: hidden must be >= 1");
  if (s.n == 0) throw std::invalid_argument("mlp: n must be >= 1");
  if (s.shift > 31) throw std::invalid_argument("mlp: shift must be <= 31");
  // The two layers' GEMMs check m, k and n; hidden is named here (it read "gemm: m, k and n").
  if (s.hidden > kMaxGemmDim) throw std::invalid_argument("mlp: hidden must be <= " + std::to_string(kMaxGemmDim));
  validate(GemmShape{s.m, s.k, s.hidden, s.dtype}, t);
  validate(GemmShape{s.m, s.hidden, s.n, s.dtype}, t);
  validate_mlp_array(t, s.dtype);
}

void validate_mlp_array(const TileGeometry& t, DType dtype) {
  // An OUTPUT tile of `cols` hidden columns is stored as one DMA row into a
  // block of `rows` columns of H, at a beat-aligned offset.
  const std::uint32_t eb = elem_bytes(dtype);
  if (!(t.rows == t.cols || (t.rows % t.cols == 0 && (t.cols * eb) % t.beat_bytes == 0)))
    throw std::invalid_argument("mlp: the array needs rows == cols, or rows a multiple of cols with cols elements "
                                "a whole number of AXI beats (rows " + std::to_string(t.rows) + ", cols " +
                                std::to_string(t.cols) + ")");
}

MlpLayout place_mlp(const MlpShape& s, const TileGeometry& t, std::uint64_t base) {
  const std::uint32_t eb = elem_bytes(s.dtype);
  MlpLayout l;
  l.x = {align_up(base, 4096), s.m, s.k, t.rows, eb, t.beat_bytes};
  l.w1 = {align_up(l.x.base + l.x.bytes(), 4096), s.k, s.hidden, t.cols, eb, t.beat_bytes};
  l.h = {align_up(l.w1.base + l.w1.bytes(), 4096), s.m, s.hidden, t.rows, eb, t.beat_bytes};
  l.w2 = {align_up(l.h.base + l.h.bytes(), 4096), s.hidden, s.n, t.cols, eb, t.beat_bytes};
  l.c = {align_up(l.w2.base + l.w2.bytes(), 4096), s.m, s.n, t.cols, 4, t.beat_bytes};
  return l;
}

MlpOperands random_mlp_operands(const MlpShape& s, std::uint64_t seed) {
  GemmOperands first = random_gemm_operands(GemmShape{s.m, s.k, s.hidden, s.dtype}, seed);
  // A second, independent stream for W2 (the 1 x hidden "A" it draws is unused).
  GemmOperands second = random_gemm_operands(GemmShape{1, s.hidden, s.n, s.dtype}, seed ^ 0x9e3779b97f4a7c15ull);
  return MlpOperands{std::move(first.a), std::move(first.b), std::move(second.b)};
}

void store_mlp_operands(const MlpShape&, const MlpLayout& l, const MlpOperands& ops, SparseMemory& mem) {
  put_matrix(l.x, ops.x, mem);
  put_matrix(l.w1, ops.w1, mem);
  put_matrix(l.w2, ops.w2, mem);
}

std::vector<std::uint32_t> load_mlp_result(const MlpShape& s, const MlpLayout& l, const SparseMemory& mem) {
  std::vector<std::uint32_t> c(std::size_t{s.m} * s.n);
  std::uint8_t b[4];
  for (std::uint32_t i = 0; i < s.m; ++i)
    for (std::uint32_t j = 0; j < s.n; ++j) {
      mem.read(l.c.addr(i, j), b);
      c[std::size_t{i} * s.n + j] =
          std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 | std::uint32_t{b[3]} << 24;
    }
  return c;
}

std::vector<std::uint16_t> load_mlp_hidden(const MlpShape& s, const MlpLayout& l, const SparseMemory& mem) {
  std::vector<std::uint16_t> h(std::size_t{s.m} * s.hidden);
  std::uint8_t b[2] = {0, 0};
  for (std::uint32_t i = 0; i < s.m; ++i)
    for (std::uint32_t j = 0; j < s.hidden; ++j) {
      mem.read(l.h.addr(i, j), std::span<std::uint8_t>(b, l.h.elem_bytes));
      h[std::size_t{i} * s.hidden + j] = static_cast<std::uint16_t>(b[0] | (l.h.elem_bytes == 2 ? b[1] << 8 : 0));
    }
  return h;
}

Program compile_mlp(const MlpShape& s, const MlpLayout& l, const TileGeometry& t) {
  validate(s, t);
  const std::uint32_t eb = elem_bytes(s.dtype);
  const ScratchPlan plan = ScratchPlan::make(t, 0, t.acc_rows);
  std::vector<Fold> folds;
  append_folds(folds, l.x, l.w1, t, plan.mb_max, 0, s.m, 0, s.hidden, 0, s.k);
  const std::size_t layer1 = folds.size();
  append_folds(folds, l.h, l.w2, t, plan.mb_max, 0, s.m, 0, s.n, 0, s.hidden);
  folds[layer1].barrier = true;  // layer 2 reads H, which layer 1's stores write

  ProgramBuilder pb;
  FoldEmitter fe(pb, t, plan, s.dtype);
  std::vector<ProgramBuilder::Ref> stores, h_stores;
  fe.emit(folds, [&](const Fold& fd) {
    const bool first_layer = fd.b == &l.w1;
    Instr out;
    out.op = Opcode::OUTPUT;
    out.dtype = s.dtype;
    out.rows = static_cast<std::uint16_t>(fd.mb);
    out.cols = static_cast<std::uint16_t>(fd.nb);
    out.acc_row = 0;
    out.sp_row = static_cast<std::uint16_t>(plan.out_buf);
    if (first_layer) {
      out.relu = true;
      out.convert = true;
      out.shift = s.dtype == DType::kInt8 ? s.shift : 0;
    }
    const auto out_ref = pb.emit(out, stores);  // the region must be stored before it is overwritten
    Instr st;
    st.op = Opcode::DMA_STORE;
    st.rows = static_cast<std::uint16_t>(fd.mb);
    st.sp_row = static_cast<std::uint16_t>(plan.out_buf);
    if (first_layer) {
      st.cols = static_cast<std::uint16_t>(fd.nb * eb);
      st.hbm_addr = l.h.addr(fd.m0, fd.n0);
      st.hbm_stride = l.h.row_pitch();
    } else {
      st.cols = static_cast<std::uint16_t>(fd.nb * 4);
      st.hbm_addr = l.c.row_addr(fd.n0 / t.cols, fd.m0);
      st.hbm_stride = l.c.row_pitch();
    }
    stores = {pb.emit(st, {out_ref})};
    if (first_layer) {
      h_stores.push_back(stores.front());
      if (fd.m0 + fd.mb >= s.m && fd.n0 + fd.nb >= s.hidden) fe.load_deps = h_stores;
    }
  });
  return pb.take();
}

}  // namespace mxc
