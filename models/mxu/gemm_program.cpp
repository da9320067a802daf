#include "models/mxu/gemm_program.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

#include "models/mxu/program_builder.h"

namespace mxc {

namespace {

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }
std::uint32_t elem_bytes(DType t) { return t == DType::kBf16 ? 2 : 1; }

}  // namespace

void validate(const GemmShape& s) {
  if (s.m == 0) throw std::invalid_argument("gemm: m must be >= 1");
  if (s.k == 0) throw std::invalid_argument("gemm: k must be >= 1");
  if (s.n == 0) throw std::invalid_argument("gemm: n must be >= 1");
  if (s.m > kMaxGemmDim || s.k > kMaxGemmDim || s.n > kMaxGemmDim)
    throw std::invalid_argument("gemm: m, k and n must each be <= " + std::to_string(kMaxGemmDim));
}

std::uint32_t gemm_m_block(const TileGeometry& t) {
  const std::uint32_t mb = t.sp_rows < 2 * t.rows + 3 ? 0 : std::min(t.acc_rows, (t.sp_rows - 2 * t.rows) / 3);
  if (mb == 0)
    throw std::invalid_argument("gemm: a " + std::to_string(t.rows) +
                                "-row array leaves no room in the scratchpad of " + std::to_string(t.sp_rows) +
                                " rows: rows must be <= (sp_rows - 3) / 2 = " +
                                std::to_string(t.sp_rows < 3 ? 0 : (t.sp_rows - 3) / 2) + " for a GEMM");
  return mb;
}

void validate(const GemmShape& s, const TileGeometry& t) {
  validate(s);
  t.validate();
  const auto blocks = [](std::uint64_t n, std::uint64_t b) { return (n + b - 1) / b; };
  const std::uint64_t folds = blocks(s.m, gemm_m_block(t)) * blocks(s.n, t.cols) * blocks(s.k, t.rows);
  if (folds > kMaxGemmFolds)
    throw std::invalid_argument("gemm: " + std::to_string(s.m) + " x " + std::to_string(s.k) + " x " +
                                std::to_string(s.n) + " on a " + std::to_string(t.rows) + "x" + std::to_string(t.cols) +
                                " array is " + std::to_string(folds) + " folds; a program holds at most " +
                                std::to_string(kMaxGemmFolds) + " (a larger array or a smaller GEMM)");
}

GemmLayout place_gemm(const GemmShape& s, const TileGeometry& t, std::uint64_t base) {
  const std::uint32_t eb = elem_bytes(s.dtype);
  GemmLayout l;
  l.a = {align_up(base, 4096), s.m, s.k, t.rows, eb, t.beat_bytes};
  l.b = {align_up(l.a.base + l.a.bytes(), 4096), s.k, s.n, t.cols, eb, t.beat_bytes};
  l.c = {align_up(l.b.base + l.b.bytes(), 4096), s.m, s.n, t.cols, 4, t.beat_bytes};
  return l;
}

GemmOperands random_gemm_operands(const GemmShape& s, std::uint64_t seed) {
  // mt19937_64's output sequence is fixed by the standard; raw bits keep the
  // values identical on every platform (std distributions are not).
  std::mt19937_64 gen(seed);
  const auto draw = [&]() -> std::uint16_t {
    const std::uint64_t r = gen();
    if (s.dtype == DType::kInt8) return static_cast<std::uint16_t>(r & 0xff);
    const std::uint16_t sign = static_cast<std::uint16_t>((r >> 8) & 1) << 15;
    const std::uint16_t exponent = static_cast<std::uint16_t>(119 + (r >> 9) % 16);  // 2^-8 .. 2^7
    const std::uint16_t mantissa = static_cast<std::uint16_t>((r >> 16) & 0x7f);
    return static_cast<std::uint16_t>(sign | exponent << 7 | mantissa);
  };
  GemmOperands ops;
  ops.a.resize(std::size_t{s.m} * s.k);
  ops.b.resize(std::size_t{s.k} * s.n);
  for (auto& v : ops.a) v = draw();
  for (auto& v : ops.b) v = draw();
  return ops;
}

void store_operands(const GemmShape& s, const GemmLayout& l, const GemmOperands& ops, SparseMemory& mem) {
  const std::uint32_t eb = elem_bytes(s.dtype);
  const auto put = [&](const MatrixLayout& ml, const std::vector<std::uint16_t>& v) {
    for (std::uint32_t i = 0; i < ml.rows; ++i)
      for (std::uint32_t j = 0; j < ml.cols; ++j) {
        const std::uint16_t e = v[std::size_t{i} * ml.cols + j];
        const std::uint8_t bytes[2] = {static_cast<std::uint8_t>(e), static_cast<std::uint8_t>(e >> 8)};
        mem.write(ml.addr(i, j), std::span<const std::uint8_t>(bytes, eb));
      }
  };
  put(l.a, ops.a);
  put(l.b, ops.b);
}

std::vector<std::uint32_t> load_result(const GemmShape& s, const GemmLayout& l, const SparseMemory& mem) {
  std::vector<std::uint32_t> c(std::size_t{s.m} * s.n);
  std::uint8_t b[4];
  for (std::uint32_t i = 0; i < s.m; ++i)
    for (std::uint32_t j = 0; j < s.n; ++j) {
      mem.read(l.c.addr(i, j), b);
      c[std::size_t{i} * s.n + j] = std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 |
                                    std::uint32_t{b[3]} << 24;
    }
  return c;
}

Program compile_gemm(const GemmShape& s, const GemmLayout& l, const TileGeometry& t) {
  validate(s, t);
  const std::uint32_t eb = elem_bytes(s.dtype);
  // Scratchpad: two activation buffers of mb rows, two weight buffers of
  // `rows` rows, one output region of mb rows.
  const std::uint32_t mb_max = gemm_m_block(t);
  const std::uint32_t a_buf[2] = {0, mb_max};
  const std::uint32_t w_buf[2] = {2 * mb_max, 2 * mb_max + t.rows};
  const std::uint32_t out_buf = 2 * mb_max + 2 * t.rows;

  struct Fold {
    std::uint32_t m0, mb, n0, nb, k0, kb;
    bool first_k, last_k;
  };
  std::vector<Fold> folds;
  for (std::uint32_t m0 = 0; m0 < s.m; m0 += mb_max)
    for (std::uint32_t n0 = 0; n0 < s.n; n0 += t.cols)
      for (std::uint32_t k0 = 0; k0 < s.k; k0 += t.rows)
        folds.push_back({m0, std::min(mb_max, s.m - m0), n0, std::min(t.cols, s.n - n0), k0,
                         std::min(t.rows, s.k - k0), k0 == 0, k0 + t.rows >= s.k});

  ProgramBuilder pb;
  using Ref = ProgramBuilder::Ref;
  std::vector<Ref> loads_of(folds.size());  // the W load of each fold (A load precedes it)
  std::vector<Ref> a_load_of(folds.size());
  std::vector<Ref> readers_of[2];            // compute instructions reading each buffer pair
  std::vector<Ref> store_deps;               // OUTPUT must not overwrite a region still being stored

  const auto emit_loads = [&](std::size_t f) {
    const Fold& fd = folds[f];
    const int p = static_cast<int>(f % 2);
    Instr la;
    la.op = Opcode::DMA_LOAD;
    la.rows = static_cast<std::uint16_t>(fd.mb);
    la.cols = static_cast<std::uint16_t>(fd.kb * eb);
    la.sp_row = static_cast<std::uint16_t>(a_buf[p]);
    la.hbm_addr = l.a.row_addr(fd.k0 / t.rows, fd.m0);
    la.hbm_stride = l.a.row_pitch();
    a_load_of[f] = pb.emit(la, readers_of[p]);
    Instr lw = la;
    lw.rows = static_cast<std::uint16_t>(fd.kb);
    lw.cols = static_cast<std::uint16_t>(fd.nb * eb);
    lw.sp_row = static_cast<std::uint16_t>(w_buf[p]);
    lw.hbm_addr = l.b.row_addr(fd.n0 / t.cols, fd.k0);
    lw.hbm_stride = l.b.row_pitch();
    loads_of[f] = pb.emit(lw, readers_of[p]);
    readers_of[p].clear();
  };

  emit_loads(0);
  for (std::size_t f = 0; f < folds.size(); ++f) {
    const Fold& fd = folds[f];
    const int p = static_cast<int>(f % 2);
    Instr w;
    w.op = Opcode::LOAD_WEIGHTS;
    w.dtype = s.dtype;
    w.rows = static_cast<std::uint16_t>(fd.kb);
    w.cols = static_cast<std::uint16_t>(fd.nb);
    w.sp_row = static_cast<std::uint16_t>(w_buf[p]);
    w.buf = static_cast<std::uint8_t>(p);
    readers_of[p].push_back(pb.emit(w, {loads_of[f]}));
    // Prefetch the next fold into the other buffers while this one computes.
    if (f + 1 < folds.size()) emit_loads(f + 1);
    Instr mm;
    mm.op = Opcode::MATMUL;
    mm.dtype = s.dtype;
    mm.rows = static_cast<std::uint16_t>(fd.mb);
    mm.cols = static_cast<std::uint16_t>(fd.kb);
    mm.sp_row = static_cast<std::uint16_t>(a_buf[p]);
    mm.acc_row = 0;
    mm.accumulate = !fd.first_k;
    mm.buf = static_cast<std::uint8_t>(p);
    readers_of[p].push_back(pb.emit(mm, {a_load_of[f]}));
    if (fd.last_k) {
      Instr out;
      out.op = Opcode::OUTPUT;
      out.dtype = s.dtype;
      out.rows = static_cast<std::uint16_t>(fd.mb);
      out.cols = static_cast<std::uint16_t>(fd.nb);
      out.acc_row = 0;
      out.sp_row = static_cast<std::uint16_t>(out_buf);
      const Ref out_ref = pb.emit(out, store_deps);
      Instr st;
      st.op = Opcode::DMA_STORE;
      st.rows = static_cast<std::uint16_t>(fd.mb);
      st.cols = static_cast<std::uint16_t>(fd.nb * 4);
      st.sp_row = static_cast<std::uint16_t>(out_buf);
      st.hbm_addr = l.c.row_addr(fd.n0 / t.cols, fd.m0);
      st.hbm_stride = l.c.row_pitch();
      store_deps = {pb.emit(st, {out_ref})};
    }
  }
  return pb.take();
}

}  // namespace mxc
