#pragma once
// ModelDma: the DMA engine's timing (rtl/mxu_dma.sv, docs/dma.md) as
// registers updated once per cycle, without data: burst walkers, the shared
// AR/AW register, per-ID busy bits, the 2-entry R FIFO and the store path
// (W sequencer, scratchpad read in flight, 3-entry W FIFO).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "models/mxu/instr.h"
#include "models/mxu/model_axi_port.h"

namespace mxc {

/// The burst walker (rtl/mxu_dma_bursts.sv): one INCR burst per row, cut at
/// 4 KiB boundaries (counted from the burst's beat-aligned address) and at
/// 256 beats; rows of 0 beats make no burst.
struct ModelBurstWalker {
  std::uint32_t rows_left = 0;
  std::uint64_t row_addr = 0, cur_addr = 0;
  std::uint32_t beats_left = 0, bank = 0, row_beats = 0;
  std::uint32_t stride = 0;
  std::uint32_t beat_shift = 5;

  bool valid() const { return rows_left != 0; }
  std::uint32_t len_beats() const;
  void start(const Instr& in, std::uint32_t row_beats_);
  void next();
  bool operator==(const ModelBurstWalker&) const = default;
};

class ModelDma {
 public:
  /// `sp_banks`: beats per scratchpad row (SP_BANKS); the bank of a beat is
  /// kept in as many bits as the RTL's (BANK_W), so rows wider than a
  /// scratchpad row wrap as they do there.
  ModelDma(std::uint32_t beat_bytes, std::uint32_t sp_banks, std::uint32_t max_outstanding);

  /// Combinational outputs of the cycle, from registers and the slave's outputs.
  struct Comb {
    bool desc_ready = false, done = false, stall_mem = false, busy = false;
    bool sp_wr_valid = false;
    ModelAxiIn axi;
    // internal, used at the edge
    bool ax_load = false, ax_fire = false, r_fire = false, r_known = false, b_fire = false;
    bool w_issue = false, w_take = false, w_pop = false;
    std::uint32_t free_id = 0;
  };
  void comb(const ModelAxiOut& s, Comb& c) const;
  /// The clock edge: `desc` is the queue head taken when c.desc_ready and
  /// desc_valid. changed() tells whether a register may have changed.
  void edge(const Comb& c, const ModelAxiOut& s, bool desc_fire, const Instr* desc, bool sp_wr_ready);

  bool busy() const { return m_r.busy; }

  struct Regs {
    bool busy = false, store = false;
    std::uint32_t last_bank = 0, last_bytes = 0;  // bank and valid bytes of a row's last beat
    ModelBurstWalker ag, wg;
    std::uint64_t id_busy = 0;
    bool ax_valid = false;
    std::uint32_t ax_id = 0, ax_beats = 0;
    std::uint64_t ax_addr = 0;
    std::uint32_t rf_count = 0;
    std::uint32_t aw_ahead = 0;
    bool wb_active = false, rd_pend = false, rd_last = false;
    std::uint32_t wb_bank = 0, wb_left = 0, rd_bytes = 0;
    std::uint32_t wf_count = 0;
    std::uint32_t wf_last = 0, wf_bytes[3] = {0, 0, 0}, wf_head = 0;  // W FIFO: last flags (bits) and WSTRB counts
    bool operator==(const Regs&) const = default;
  };
  const Regs& regs() const { return m_r; }
  /// A register may have changed at the last edge (false: none did).
  bool changed() const { return m_changed; }
  /// The last edge took an R beat into the R FIFO and wrote one to the
  /// scratchpad (the FIFO's count held) and did nothing else but free the
  /// beat's ID on RLAST when that can load no new address (all of them are
  /// out). While beats keep coming, each cycle repeats that (with an address
  /// left to send, up to the end of the burst): ModelAxiPort::begin_stream.
  bool read_beat_only() const { return m_beat_only; }
  /// IDs whose last R beat came in cycles that were not evaluated (bit i = ID i).
  void free_ids(std::uint64_t mask) { m_r.id_busy &= ~mask; }
  /// The last edge of a store read the scratchpad for the next beat of the
  /// burst, pushed the previous read into the W FIFO and sent the FIFO's
  /// head as a W beat (the FIFO's count held), and did nothing else. Each
  /// following cycle repeats that for w_stream_length() cycles: until the
  /// read of the burst's last beat (which takes the next burst) and before
  /// a W beat with WLAST.
  bool write_beat_only() const { return m_w_beat_only; }
  std::uint32_t w_stream_length() const;
  /// Repeats that edge `n` times (n <= w_stream_length()); the W beats sent
  /// go to `sent` (WSTRB byte counts), at most 256.
  void w_stream(std::uint32_t n, std::uint16_t* sent);

 private:
  std::uint32_t m_beat_bytes, m_shift, m_bank_mask, m_nid;
  Regs m_r;
  bool m_changed = false, m_beat_only = false, m_w_beat_only = false;
};

// Per-cycle logic, inline: it runs for every evaluated cycle.
inline void ModelDma::comb(const ModelAxiOut& s, Comb& c) const {
  const Regs& r = m_r;
  c.desc_ready = !r.busy;
  c.busy = r.busy;
  const bool ag_valid = r.ag.valid();
  // The lowest free ID below MAX_OUTSTANDING.
  const std::uint32_t lowest_free = static_cast<std::uint32_t>(std::countr_zero(~r.id_busy));
  const bool id_avail = lowest_free < m_nid;
  c.free_id = id_avail ? lowest_free : 0;
  const bool ax_ready = r.store ? s.awready : s.arready;
  // Bitwise on bools where the value follows the memory's timing: a
  // short-circuit's branch would be mispredicted.
  c.ax_fire = r.ax_valid & ax_ready;
  c.ax_load = r.busy & ag_valid & id_avail & ((!r.ax_valid) | c.ax_fire);
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
  c.stall_mem = r.busy & ((r.ax_valid & !ax_ready) | (wvalid & !s.wready) |
                          ((!r.store) & (r.id_busy != 0) & rready & !s.rvalid) | (r.store & wait_b));
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

// Per-cycle logic, inline: it runs for every evaluated cycle.
inline std::uint32_t ModelBurstWalker::len_beats() const {
  const std::uint64_t beat_mask = (std::uint64_t{1} << beat_shift) - 1;
  const std::uint32_t to_4k = static_cast<std::uint32_t>(4096 - (cur_addr & 0xfff & ~beat_mask)) >> beat_shift;
  return std::min({beats_left, to_4k, 256u});
}

}  // namespace mxc
