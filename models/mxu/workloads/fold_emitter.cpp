#include "models/mxu/workloads/fold_emitter.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mxc {

ScratchPlan ScratchPlan::make(const TileGeometry& t, std::uint32_t extra_rows, std::uint32_t acc_limit) {
  // Row numbers are 16-bit instruction fields.
  if (t.sp_rows > 65536 || t.acc_rows > 65536)
    throw std::invalid_argument("workload: sp_rows and acc_rows must be <= 65536 (16-bit row fields)");
  ScratchPlan p;
  const std::uint64_t fixed = 2ull * t.rows + extra_rows;
  const std::uint32_t by_sp = t.sp_rows > fixed ? static_cast<std::uint32_t>((t.sp_rows - fixed) / 3) : 0;
  p.mb_max = std::min({t.acc_rows, acc_limit, by_sp});
  if (p.mb_max == 0)
    throw std::invalid_argument("workload: a scratchpad of " + std::to_string(t.sp_rows) + " rows is too small for a " +
                                std::to_string(t.rows) + "-row array: it needs at least 2 x rows + " +
                                std::to_string(extra_rows) + " + 3 = " + std::to_string(fixed + 3) + " rows");
  p.a_buf[0] = 0;
  p.a_buf[1] = p.mb_max;
  p.w_buf[0] = 2 * p.mb_max;
  p.w_buf[1] = 2 * p.mb_max + t.rows;
  p.out_buf = 2 * p.mb_max + 2 * t.rows;
  p.extra = p.out_buf + p.mb_max;
  return p;
}

void append_folds(std::vector<Fold>& folds, const MatrixLayout& a, const MatrixLayout& b, const TileGeometry& t,
                  std::uint32_t mb_max, std::uint32_t m_begin, std::uint32_t m_end, std::uint32_t n_begin,
                  std::uint32_t n_end, std::uint32_t k_begin, std::uint32_t k_end) {
  for (std::uint32_t m0 = m_begin; m0 < m_end; m0 += mb_max)
    for (std::uint32_t n0 = n_begin; n0 < n_end; n0 += t.cols)
      for (std::uint32_t k0 = k_begin; k0 < k_end; k0 += t.rows) {
        Fold f;
        f.a = &a;
        f.b = &b;
        f.m0 = m0;
        f.mb = std::min(mb_max, m_end - m0);
        f.n0 = n0;
        f.nb = std::min(t.cols, n_end - n0);
        f.k0 = k0;
        f.kb = std::min(t.rows, k_end - k0);
        f.first_k = k0 == k_begin;
        f.last_k = k0 + t.rows >= k_end;
        folds.push_back(f);
      }
}

void FoldEmitter::emit_loads(const Fold& fd, int p, const std::vector<Ref>& extra) {
  const std::uint32_t eb = m_dtype == DType::kBf16 ? 2 : 1;
  // K slices must start on a block boundary of A and an N block of B: the
  // DMA moves whole rows of one block.
  if (fd.k0 % m_tile.rows || fd.n0 % m_tile.cols)
    throw std::invalid_argument("workload: fold at k0=" + std::to_string(fd.k0) + " n0=" + std::to_string(fd.n0) +
                                " is not aligned to the array");
  std::vector<Ref> deps = m_readers[p];
  deps.insert(deps.end(), extra.begin(), extra.end());
  Instr la;
  la.op = Opcode::DMA_LOAD;
  la.rows = static_cast<std::uint16_t>(fd.mb);
  la.cols = static_cast<std::uint16_t>(fd.kb * eb);
  la.sp_row = static_cast<std::uint16_t>(m_plan.a_buf[p]);
  la.hbm_addr = fd.a->row_addr(fd.k0 / m_tile.rows, fd.m0);
  la.hbm_stride = fd.a->row_pitch();
  m_a_load = m_pb.emit(la, deps);
  Instr lw = la;
  lw.rows = static_cast<std::uint16_t>(fd.kb);
  lw.cols = static_cast<std::uint16_t>(fd.nb * eb);
  lw.sp_row = static_cast<std::uint16_t>(m_plan.w_buf[p]);
  lw.hbm_addr = fd.b->row_addr(fd.n0 / m_tile.cols, fd.k0);
  lw.hbm_stride = fd.b->row_pitch();
  m_w_load = m_pb.emit(lw, deps);
  m_readers[p].clear();
}

void FoldEmitter::emit(const std::vector<Fold>& folds, const Epilogue& epilogue) {
  if (folds.empty()) return;
  emit_loads(folds[0], 0, load_deps);
  load_deps.clear();
  Ref a_load = m_a_load, w_load = m_w_load;
  for (std::size_t f = 0; f < folds.size(); ++f) {
    const Fold& fd = folds[f];
    const int p = static_cast<int>(f % 2);
    Instr w;
    w.op = Opcode::LOAD_WEIGHTS;
    w.dtype = m_dtype;
    w.rows = static_cast<std::uint16_t>(fd.kb);
    w.cols = static_cast<std::uint16_t>(fd.nb);
    w.sp_row = static_cast<std::uint16_t>(m_plan.w_buf[p]);
    w.buf = static_cast<std::uint8_t>(p);
    m_readers[p].push_back(m_pb.emit(w, {w_load}));
    const bool prefetch = f + 1 < folds.size() && !folds[f + 1].barrier;
    Ref next_a = a_load, next_w = w_load;
    if (prefetch) {
      emit_loads(folds[f + 1], 1 - p, {});
      next_a = m_a_load;
      next_w = m_w_load;
    }
    Instr mm;
    mm.op = Opcode::MATMUL;
    mm.dtype = m_dtype;
    mm.rows = static_cast<std::uint16_t>(fd.mb);
    mm.cols = static_cast<std::uint16_t>(fd.kb);
    mm.sp_row = static_cast<std::uint16_t>(m_plan.a_buf[p]);
    mm.acc_row = 0;
    mm.accumulate = !fd.first_k;
    mm.buf = static_cast<std::uint8_t>(p);
    m_readers[p].push_back(m_pb.emit(mm, {a_load}));
    if (fd.last_k) epilogue(fd);
    if (f + 1 < folds.size() && !prefetch) {
      emit_loads(folds[f + 1], 1 - p, load_deps);
      load_deps.clear();
      next_a = m_a_load;
      next_w = m_w_load;
    }
    a_load = next_a;
    w_load = next_w;
  }
}

}  // namespace mxc
