#include "models/mxu/model_dma.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace mxc {

void ModelBurstWalker::start(const Instr& in, std::uint32_t row_beats_) {
  rows_left = row_beats_ == 0 ? 0 : in.rows;
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

ModelDma::ModelDma(std::uint32_t beat_bytes, std::uint32_t sp_banks, std::uint32_t max_outstanding)
    : m_beat_bytes(beat_bytes),
      m_shift(0),
      // BANK_W = SP_BANKS > 1 ? clog2(SP_BANKS) : 1 (rtl/mxu_dma.sv)
      m_bank_mask(sp_banks > 1 ? std::bit_ceil(sp_banks) - 1 : 1),
      m_nid(max_outstanding) {
  while ((1u << m_shift) < beat_bytes) ++m_shift;
  if (m_nid == 0 || m_nid > 64) throw std::invalid_argument("model dma: max_outstanding must be in 1..64");
  m_r.ag.beat_shift = m_r.wg.beat_shift = m_shift;
}

void ModelDma::edge(const Comb& c, const ModelAxiOut& s, bool desc_fire, const Instr* desc, bool sp_wr_ready) {
  // Every register update below is guarded by one of these (or is a no-op
  // without them): when none holds, the edge changes nothing.
  const bool r_in = c.r_fire & c.r_known, sp_out = c.sp_wr_valid & sp_wr_ready;  // bitwise: as in comb()
  const bool control = desc_fire | c.done | c.ax_load | c.ax_fire | (c.b_fire & m_r.store) | c.w_take;
  const bool w_path = c.w_issue || m_r.rd_pend || c.w_pop;
  m_changed = control || w_path || r_in || sp_out;
  m_beat_only = !control && !w_path && r_in && sp_out && !m_r.ax_valid && (!s.rlast || !m_r.ag.valid());
  m_w_beat_only = !control && !r_in && !sp_out && c.w_issue && m_r.rd_pend && c.w_pop && m_r.wb_left != 1;
  if (!m_changed) return;
  Regs& r = m_r;
  // The values before the edge that the updates below overwrite (copied one
  // by one: copying all the registers costs more on every DMA cycle).
  const bool o_store = r.store, ag_valid = r.ag.valid(), wg_valid = r.wg.valid();
  const std::uint64_t ag_addr = r.ag.cur_addr;
  const std::uint32_t ag_len = c.ax_load ? r.ag.len_beats() : 0;
  const std::uint32_t wg_bank = r.wg.bank, wg_len = c.w_take ? r.wg.len_beats() : 0;
  const std::uint32_t last_bank = r.last_bank, last_bytes = r.last_bytes;
  const std::uint32_t wb_left = r.wb_left, wb_bank = r.wb_bank;
  const bool rd_pend = r.rd_pend, rd_last = r.rd_last;
  const std::uint32_t rd_bytes = r.rd_bytes, wf_head = r.wf_head, wf_count = r.wf_count;
  if (desc_fire) {
    r.busy = true;
    r.store = desc->op == Opcode::DMA_STORE;
    const std::uint32_t row_beats = (std::uint32_t{desc->cols} + m_beat_bytes - 1) >> m_shift;
    r.last_bank = (row_beats - 1) & m_bank_mask;
    r.last_bytes = ((std::uint32_t{desc->cols} - 1) & (m_beat_bytes - 1)) + 1;
    // A descriptor the RTL refuses (mxu_dma.sv: address or stride not a multiple of the beat, a
    // row of 0 bytes) starts no walker and completes like an empty one. The RTL's error flag is
    // not modelled: the instruction checks keep such descriptors out of the programs run here.
    const std::uint64_t beat_mask = m_beat_bytes - 1;
    const bool bad = desc->cols == 0 || (desc->hbm_addr & beat_mask) != 0 || (desc->hbm_stride & beat_mask) != 0;
    if (!bad) {
      r.ag.start(*desc, row_beats);
      if (r.store) r.wg.start(*desc, row_beats);
    }
  } else if (c.done) {
    r.busy = false;
  }
  if (ag_valid && c.ax_load) r.ag.next();

  if (c.ax_load) {
    r.ax_valid = true;
    r.ax_id = c.free_id;
    r.ax_addr = ag_addr;
    r.ax_beats = ag_len;
    r.id_busy |= std::uint64_t{1} << c.free_id;
  } else if (c.ax_fire) {
    r.ax_valid = false;
  }
  // The ID of an R beat with RLAST is free (a select: rid < MAX_OUTSTANDING <= 64).
  r.id_busy &= ~((r_in & s.rlast) ? std::uint64_t{1} << s.rid : 0);
  if (c.b_fire && o_store) r.id_busy &= ~(std::uint64_t{1} << s.bid);
  r.rf_count = r.rf_count + (r_in ? 1 : 0) - (sp_out ? 1 : 0);

  // Store data path.
  if (wg_valid && c.w_take) r.wg.next();
  r.aw_ahead = r.aw_ahead + ((c.ax_load && o_store) ? 1 : 0) - (c.w_take ? 1 : 0);
  r.rd_pend = c.w_issue;
  if (c.w_take)
    r.wb_active = true;
  else if (c.w_issue && wb_left == 1)
    r.wb_active = false;
  if (c.w_take) {
    r.wb_bank = wg_bank & m_bank_mask;
    r.wb_left = wg_len;  // AWLEN + 1
  } else if (c.w_issue) {
    r.wb_bank = (wb_bank + 1) & m_bank_mask;
    r.wb_left = wb_left - 1;
  }
  if (c.w_issue) {
    r.rd_last = wb_left == 1;
    r.rd_bytes = wb_bank == last_bank ? last_bytes : m_beat_bytes;
  }
  if (rd_pend) {  // push the read's data into the W FIFO
    const std::uint32_t slot = (wf_head + wf_count) % 3;
    r.wf_bytes[slot] = rd_bytes;
    r.wf_last = (r.wf_last & ~(1u << slot)) | ((rd_last ? 1u : 0u) << slot);
  }
  r.wf_count = wf_count + (rd_pend ? 1 : 0) - (c.w_pop ? 1 : 0);
  if (c.w_pop) r.wf_head = (wf_head + 1) % 3;
}

std::uint32_t ModelDma::w_stream_length() const {
  const Regs& r = m_r;
  // The reads issue while wb_left >= 2 (at 1 the sequencer takes the next burst).
  std::uint32_t n = r.wb_left - 1;
  // The W beats leave in FIFO order, then the read in flight, then the reads
  // of the coming cycles (none of them a burst's last): stop before WLAST.
  for (std::uint32_t i = 0; i < r.wf_count; ++i)
    if ((r.wf_last >> ((r.wf_head + i) % 3)) & 1) return std::min(n, i);
  if (r.rd_pend && r.rd_last) n = std::min(n, r.wf_count);
  return std::min(n, 256u);
}

void ModelDma::w_stream(std::uint32_t n, std::uint16_t* sent) {
  Regs& r = m_r;
  for (std::uint32_t k = 0; k < n; ++k) {
    // The edge of a cycle with w_issue, rd_pend and w_pop and nothing else.
    sent[k] = static_cast<std::uint16_t>(r.wf_bytes[r.wf_head]);
    const std::uint32_t slot = (r.wf_head + r.wf_count) % 3;
    r.wf_bytes[slot] = r.rd_bytes;
    r.wf_last = (r.wf_last & ~(1u << slot)) | ((r.rd_last ? 1u : 0u) << slot);
    r.wf_head = (r.wf_head + 1) % 3;
    r.rd_last = r.wb_left == 1;
    r.rd_bytes = r.wb_bank == r.last_bank ? r.last_bytes : m_beat_bytes;
    r.wb_bank = (r.wb_bank + 1) & m_bank_mask;
    --r.wb_left;
  }
}

}  // namespace mxc
