#include "models/mxu/model_ici.h"

namespace mxc {

void ModelIci::edge(const Comb& c, const Instr* q_head, IciRow& out, bool& emitted) {
  Regs& r = m_r;
  emitted = false;
  // Idle, nothing arriving, nothing buffered: the edge changes nothing.
  if (r.state == State::kIdle && !c.q_pop && !c.in_fire && !r.rd_pending && r.fifo_count == 0 &&
      r.rd_idx == r.issued) {
    m_changed = false;
    return;
  }
  Regs o;  // values before the edge, copied as bytes (padding included) for the comparison below
  std::memcpy(&o, &r, sizeof(Regs));
  const bool last = head_last();  // of the row at the head before the edge
  if (c.out_pop) {
    out.dst = o.dst;
    out.row = static_cast<std::uint16_t>(o.remote_row + o.fifo_idx[o.fifo_head]);
    out.to_acc = o.to_acc;
    out.bf16 = o.bf16;
    out.bytes = o.n_cols;
    out.last = last;
    emitted = true;
  }
  r.arrived = o.arrived + (c.in_fire ? 1 : 0) - (c.consume ? o.n_rows : 0);
  r.rd_pending = c.sp_rd_en;
  r.rd_idx = o.issued;
  if (o.rd_pending) r.fifo_idx[(o.fifo_head + o.fifo_count) % 3] = o.rd_idx;
  r.fifo_count = o.fifo_count + (o.rd_pending ? 1 : 0) - (c.out_pop ? 1 : 0);
  if (c.out_pop) r.fifo_head = (o.fifo_head + 1) % 3;
  switch (o.state) {
    case State::kIdle:
      if (c.q_pop) {
        r.n_rows = q_head->rows;
        r.n_cols = q_head->cols;
        r.remote_row = q_head->remote_row;
        r.dst = q_head->dst_chip;
        r.to_acc = q_head->to_acc;
        r.bf16 = q_head->dtype == DType::kBf16;
        r.issued = 0;
        r.state = q_head->op == Opcode::ICI_SEND ? State::kSend : State::kWaitIn;
      }
      break;
    case State::kSend:
      if (c.sp_rd_en) ++r.issued;
      if (c.out_pop && last) r.state = State::kIdle;
      break;
    case State::kWaitIn:
      if (c.consume) r.state = State::kIdle;
      break;
  }
  m_changed = std::memcmp(&o, &r, sizeof(Regs)) != 0;  // bytes, padding included
}

}  // namespace mxc
