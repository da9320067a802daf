#include "models/mxu/model_dma.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace mxc {

std::uint32_t ModelBurstWalker::len_beats() const {
  const std::uint32_t to_4k = static_cast<std::uint32_t>(4096 - (cur_addr & 0xfff)) >> beat_shift;
  return std::min({beats_left, to_4k, 256u});
}

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

void ModelDma::comb(const ModelAxiOut& s, Comb& c) const {
  const Regs& r = m_r;
  c.desc_ready = !r.busy;
  c.busy = r.busy;
  const bool ag_valid = r.ag.valid();
  // The lowest free ID below MAX_OUTSTANDING.
  const std::uint32_t lowest_free = static_cast<std::uint32_t>(std::countr_zero(~r.id_busy));
  const bool id_avail = lowest_free < m_nid;
  c.free_id = id_avail ? lowest_free : 0;
  const bool ax_ready = r.store ? s.awready : s.arready;
  c.ax_fire = r.ax_valid && ax_ready;
  c.ax_load = r.busy && ag_valid && id_avail && (!r.ax_valid || c.ax_fire);
  const bool rready = r.rf_count < 2;
  c.r_fire = s.rvalid && rready;
  c.r_known = ((r.id_busy >> s.rid) & 1) && !r.store;
  c.b_fire = s.bvalid;
  c.sp_wr_valid = r.rf_count != 0;
  c.w_issue = r.wb_active && r.wf_count + (r.rd_pend ? 1 : 0) <= 2;
  c.w_take = r.store && r.wg.valid() && r.aw_ahead != 0 && (!r.wb_active || (c.w_issue && r.wb_left == 1));
  const bool wvalid = r.wf_count != 0;
  c.w_pop = wvalid && s.wready;
  const bool addr_done = !ag_valid && !r.ax_valid;
  const bool w_done = !r.wg.valid() && !r.wb_active && !r.rd_pend && r.wf_count == 0 && r.aw_ahead == 0;
  const bool wait_b = addr_done && w_done && r.id_busy != 0;
  c.done = r.busy && addr_done && r.id_busy == 0 && (r.store ? w_done : r.rf_count == 0);
  c.stall_mem = r.busy && ((r.ax_valid && !ax_ready) || (wvalid && !s.wready) ||
                           (!r.store && r.id_busy != 0 && rready && !s.rvalid) || (r.store && wait_b));
  c.axi.ar = r.ax_valid && !r.store;
  c.axi.aw = r.ax_valid && r.store;
  c.axi.ax_id = r.ax_id;
  c.axi.ax_addr = r.ax_addr;
  c.axi.ax_beats = r.ax_beats;
  c.axi.w = wvalid;
  c.axi.wlast = wvalid && ((r.wf_last >> r.wf_head) & 1);
  c.axi.w_bytes = wvalid ? r.wf_bytes[r.wf_head] : 0;
  c.axi.rready = rready;
}

void ModelDma::edge(const Comb& c, const ModelAxiOut& s, bool desc_fire, const Instr* desc, bool sp_wr_ready) {
  std::memcpy(&m_before, &m_r, sizeof(Regs));  // bytes, padding included: changed() compares bytes
  const Regs& o = m_before;  // values before the edge
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
