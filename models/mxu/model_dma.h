#pragma once
// ModelDma: the DMA engine's timing (rtl/mxu_dma.sv, docs/dma.md) as
// registers updated once per cycle, without data: burst walkers, the shared
// AR/AW register, per-ID busy bits, the 2-entry R FIFO and the store path
// (W sequencer, scratchpad read in flight, 3-entry W FIFO).
#include <cstdint>
#include <cstring>

#include "models/mxu/instr.h"
#include "models/mxu/model_axi_port.h"

namespace mxc {

/// The burst walker (rtl/mxu_dma_bursts.sv): one INCR burst per row, cut at
/// 4 KiB boundaries and at 256 beats.
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
  ModelDma(std::uint32_t beat_bytes, std::uint32_t max_outstanding);

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
  /// desc_valid. changed() tells whether a register changed.
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
  /// A register changed at the last edge.
  bool changed() const { return std::memcmp(&m_r, &m_before, sizeof(Regs)) != 0; }

 private:
  std::uint32_t m_beat_bytes, m_shift, m_nid;
  Regs m_r, m_before;  // m_before: the registers before the last edge
};

}  // namespace mxc
