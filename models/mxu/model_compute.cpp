#include "models/mxu/model_compute.h"

namespace mxc {

void ModelCompute::edge(std::uint64_t cycle, const Comb& c, const Instr* q_head) {
  Regs& r = m_r;
  // Idle with nothing entering or leaving the array: no register changes
  // (s2_last, recomputed every cycle, only matters while s2_valid).
  if (r.state == State::kIdle && !r.s2_valid && !c.wb && !c.in_valid && !c.q_pop) return;
  const Regs o = r;  // values before the edge
  if (c.wb) {
    --r.inflight[m_pipe[m_pipe_head].buf];
    if (++m_pipe_head == m_pipe.size()) m_pipe_head = 0;
    --m_pipe_n;
  }
  if (c.in_valid) {
    ++r.inflight[o.buf];
    std::size_t slot = m_pipe_head + m_pipe_n;
    if (slot >= m_pipe.size()) slot -= m_pipe.size();
    m_pipe[slot] = {cycle + m_latency, o.buf};
    ++m_pipe_n;
  }
  r.s2_valid = c.issue;
  r.s2_last = o.issued == static_cast<std::uint16_t>(total() - 1);
  switch (o.state) {
    case State::kIdle:
      if (c.q_pop) {
        r.op = q_head->op;
        r.n_rows = q_head->rows;
        r.buf = q_head->buf;
        r.issued = 0;
        r.state = q_head->op == Opcode::MATMUL ? State::kRun : State::kWait;
      }
      break;
    case State::kWait: {
      // LOAD_WEIGHTS waits for its buffer, OUTPUT for the whole array (registered counts).
      const bool ready = o.op == Opcode::LOAD_WEIGHTS ? o.inflight[o.buf] == 0
                                                      : o.inflight[0] == 0 && o.inflight[1] == 0;
      if (ready) r.state = State::kRun;
      break;
    }
    case State::kRun:
      if (c.issue) ++r.issued;
      if (o.s2_valid && o.s2_last) r.state = State::kIdle;
      break;
  }
}

std::uint64_t ModelCompute::last_writeback() const {
  if (m_pipe_n == 0) return ~std::uint64_t{0};
  std::size_t last = m_pipe_head + m_pipe_n - 1;
  if (last >= m_pipe.size()) last -= m_pipe.size();
  return m_pipe[last].cycle;
}

std::uint64_t ModelCompute::quiet_until(std::uint64_t cycle, bool q_valid) const {
  constexpr std::uint64_t kNever = ~std::uint64_t{0};
  const Regs& r = m_r;
  switch (r.state) {
    case State::kIdle:
      return q_valid ? cycle + 1 : kNever;  // pops at once, or waits for a dispatch
    case State::kRun: {
      // Rows issue while issued < total; s2 follows one cycle behind and the
      // done pulse comes with the use of the last row, (total - issued)
      // cycles from now. Before that every output holds.
      const std::uint16_t t = total();
      if (!r.s2_valid || r.s2_last || r.issued >= t) return cycle + 1;
      return cycle + (t - r.issued);
    }
    case State::kWait: {
      // Leaves WAIT at the edge of the first cycle that sees the registered
      // in-flight count of its buffer(s) at 0: the cycle after the last
      // write-back of a vector it waits for; the outputs change a cycle later.
      // No vector enters while waiting, so the pipe's entries are final.
      std::uint64_t last = 0;
      bool any = false;
      std::size_t k = m_pipe_head;
      for (std::size_t i = 0; i < m_pipe_n; ++i) {
        const InFlight& f = m_pipe[k];
        if (r.op != Opcode::LOAD_WEIGHTS || f.buf == r.buf) {
          last = f.cycle;
          any = true;
        }
        if (++k == m_pipe.size()) k = 0;
      }
      if (!any || last < cycle) return cycle + 1;
      return last + 2;
    }
  }
  return cycle + 1;
}

}  // namespace mxc
