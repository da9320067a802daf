#include "models/mxu/model_dma.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace mxc {

void ModelBurstWalker::start(const Instr& in, std::uint32_t row_beats_) {
  rows_left = in.rows;
  row_addr = cur_addr = in.hbm_addr;
  beats_left = row_beats = row_beats_;
  bank = 0;
  stride = in.hbm_stride;
}

void ModelBurstWalker::next() {
  const std::uint32_t len = len_beats();
  if (len == beats_left) {
    --rows_left;
    row_addr += stride;
    cur_addr = row_addr;
    beats_left = row_beats;
    bank = 0;
  } else {
    cur_addr += std::uint64_t{len} << beat_shift;
    beats_left -= len;
    bank += len;
  }
}

ModelDma::ModelDma(std::uint32_t beat_bytes, std::uint32_t max_outstanding)
    : m_beat_bytes(beat_bytes), m_shift(0), m_nid(max_outstanding) {
  while ((1u << m_shift) < beat_bytes) ++m_shift;
  if (m_nid == 0 || m_nid > 64) throw std::invalid_argument("model dma: max_outstanding must be in 1..64");
  m_r.ag.beat_shift = m_r.wg.beat_shift = m_shift;
}

void ModelDma::edge(const Comb& c, const ModelAxiOut& s, bool desc_fire, const Instr* desc, bool sp_wr_ready) {
  // Every register update below is guarded by one of these (or is a no-op
  // without them): when none holds, the edge changes nothing.
  m_changed = desc_fire || c.done || c.ax_load || c.ax_fire || (c.r_fire && c.r_known) || (c.b_fire && m_r.store) ||
              (c.sp_wr_valid && sp_wr_ready) || c.w_take || c.w_issue || m_r.rd_pend || c.w_pop;
  if (!m_changed) return;
  const Regs o = m_r;  // values before the edge
  Regs& n = m_r;
  if (desc_fire) {
    n.busy = true;
    n.store = desc->op == Opcode::DMA_STORE;
    const std::uint32_t row_beats = (std::uint32_t{desc->cols} + m_beat_bytes - 1) >> m_shift;
    n.last_bank = row_beats - 1;
    n.last_bytes = ((std::uint32_t{desc->cols} - 1) & (m_beat_bytes - 1)) + 1;
    n.ag.start(*desc, row_beats);
    if (n.store) n.wg.start(*desc, row_beats);
  } else if (c.done) {
    n.busy = false;
  }
  if (o.ag.valid() && c.ax_load) n.ag.next();

  if (c.ax_load) {
    n.ax_valid = true;
    n.ax_id = c.free_id;
    n.ax_addr = o.ag.cur_addr;
    n.ax_beats = o.ag.len_beats();
    n.id_busy |= std::uint64_t{1} << c.free_id;
  } else if (c.ax_fire) {
    n.ax_valid = false;
  }
  if (c.r_fire && c.r_known && s.rlast) n.id_busy &= ~(std::uint64_t{1} << s.rid);
  if (c.b_fire && o.store) n.id_busy &= ~(std::uint64_t{1} << s.bid);
  n.rf_count = o.rf_count + ((c.r_fire && c.r_known) ? 1 : 0) - ((c.sp_wr_valid && sp_wr_ready) ? 1 : 0);

  // Store data path.
  if (o.wg.valid() && c.w_take) n.wg.next();
  n.aw_ahead = o.aw_ahead + ((c.ax_load && o.store) ? 1 : 0) - (c.w_take ? 1 : 0);
  n.rd_pend = c.w_issue;
  if (c.w_take)
    n.wb_active = true;
  else if (c.w_issue && o.wb_left == 1)
    n.wb_active = false;
  if (c.w_take) {
    n.wb_bank = o.wg.bank;
    n.wb_left = o.wg.len_beats();  // AWLEN + 1
  } else if (c.w_issue) {
    n.wb_bank = o.wb_bank + 1;
    n.wb_left = o.wb_left - 1;
  }
  if (c.w_issue) {
    n.rd_last = o.wb_left == 1;
    n.rd_bytes = o.wb_bank == o.last_bank ? o.last_bytes : m_beat_bytes;
  }
  if (o.rd_pend) {  // push the read's data into the W FIFO
    const std::uint32_t slot = (o.wf_head + o.wf_count) % 3;
    n.wf_bytes[slot] = o.rd_bytes;
    n.wf_last = (n.wf_last & ~(1u << slot)) | ((o.rd_last ? 1u : 0u) << slot);
  }
  n.wf_count = o.wf_count + (o.rd_pend ? 1 : 0) - (c.w_pop ? 1 : 0);
  if (c.w_pop) n.wf_head = (o.wf_head + 1) % 3;
}

}  // namespace mxc
