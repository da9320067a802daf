#pragma once
// ModelIci: the ICI unit (rtl/mxu_ici.sv) as registers updated once per
// cycle, without data: ICI_SEND reads rows into a three-row output buffer and
// offers them to the outbound port; ICI_WAIT counts inbound rows.
#include <cstdint>
#include <cstring>

#include "models/mxu/ici_row.h"
#include "models/mxu/instr.h"

namespace mxc {

class ModelIci {
 public:
  struct Inputs {
    bool q_valid = false;
    bool in_valid = false, in_to_acc = false;
    bool acc_ready = false;    ///< No accumulator write-back this cycle.
    bool sp_wr_ready = false;  ///< No OUTPUT scratchpad write this cycle.
    bool out_ready = false;
  };
  struct Comb {
    bool q_pop = false, done = false, busy = false, stall_credit = false, stall_wait = false;
    bool in_fire = false, sp_wr_valid = false, sp_rd_en = false, consume = false, out_pop = false;
  };
  void comb(const Inputs& in, Comb& c) const;
  /// The edge; fills `out` and sets `emitted` when a row left on the
  /// outbound port. changed() tells whether a register changed.
  void edge(const Comb& c, const Instr* q_head, IciRow& out, bool& emitted);

  enum class State : std::uint8_t { kIdle, kSend, kWaitIn };
  struct Regs {
    State state = State::kIdle;
    std::uint16_t n_rows = 0, n_cols = 0, remote_row = 0, issued = 0, rd_idx = 0;
    std::uint8_t dst = 0;
    bool to_acc = false, bf16 = false, rd_pending = false;
    std::uint32_t fifo_count = 0;
    std::uint16_t fifo_idx[3] = {0, 0, 0};
    std::uint32_t fifo_head = 0;
    std::uint32_t arrived = 0;
    bool operator==(const Regs&) const = default;
  };
  const Regs& regs() const { return m_r; }
  /// Idle with nothing buffered: with no queued instruction and no inbound
  /// row every output is low and an edge changes nothing (hold() instead).
  bool idle() const {
    return m_r.state == State::kIdle && !m_r.rd_pending && m_r.fifo_count == 0 && m_r.rd_idx == m_r.issued;
  }
  void hold() { m_changed = false; }
  /// A register changed at the last edge.
  bool changed() const { return m_changed; }

 private:
  bool head_last() const { return m_r.fifo_idx[m_r.fifo_head] == static_cast<std::uint16_t>(m_r.n_rows - 1); }
  Regs m_r;
  bool m_changed = false;
};

// Per-cycle logic, inline: it runs for every evaluated cycle.
inline void ModelIci::comb(const Inputs& in, Comb& c) const {
  const Regs& r = m_r;
  const bool in_ready = in.in_to_acc ? in.acc_ready : in.sp_wr_ready;
  c.in_fire = in.in_valid && in_ready;
  c.sp_wr_valid = in.in_valid && !in.in_to_acc;
  c.consume = r.state == State::kWaitIn && r.arrived >= r.n_rows;
  c.stall_wait = r.state == State::kWaitIn && !c.consume;
  // Buffer + read in flight <= 2 (rtl/mxu_ici.sv): a row read and one sent every cycle while the port is ready.
  c.sp_rd_en = r.state == State::kSend && r.issued < r.n_rows && r.fifo_count + (r.rd_pending ? 1 : 0) <= 2;
  const bool out_valid = r.fifo_count != 0;
  c.out_pop = out_valid && in.out_ready;
  c.stall_credit = out_valid && !in.out_ready;
  c.q_pop = r.state == State::kIdle && in.q_valid;
  c.busy = r.state != State::kIdle;
  c.done = (r.state == State::kSend && c.out_pop && head_last()) || c.consume;
}

}  // namespace mxc
