#pragma once
// ModelCompute: the compute unit (rtl/mxu_compute.sv) and the MXU core's
// in-flight tracking (rtl/mxu_core.sv) as registers updated once per cycle,
// without data. A vector entering the array in cycle c is written back in
// cycle c + ROWS + COLS (the core's metadata pipe).
#include <cstdint>
#include <vector>

#include "models/mxu/instr.h"

namespace mxc {

class ModelCompute {
 public:
  ModelCompute(std::uint32_t rows, std::uint32_t cols)
      : m_rows(rows), m_latency(rows + cols), m_pipe(rows + cols + 1) {}

  struct Comb {
    bool q_pop = false, done = false, busy = false, stall_weights = false, stall_drain = false;
    bool in_valid = false;  ///< A vector enters the array this cycle.
    bool sp_wr = false;     ///< OUTPUT writes a scratchpad row this cycle.
    bool wb = false;        ///< The core writes an accumulator row back this cycle.
    bool issue = false;
  };
  void comb(std::uint64_t cycle, bool q_valid, Comb& c) const;
  /// The clock edge.
  void edge(std::uint64_t cycle, const Comb& c, const Instr* q_head);

  /// Cycle of the next write-back, or ~0 when no vector is in flight.
  std::uint64_t next_writeback() const { return m_pipe_n == 0 ? ~std::uint64_t{0} : m_pipe[m_pipe_head].cycle; }
  /// Cycle of the last write-back in flight (its edge drains the array), or
  /// ~0 when no vector is in flight.
  std::uint64_t last_writeback() const;
  /// With the queue input held at `q_valid`: the first cycle after `cycle`
  /// whose outputs other than `wb` and `issue` may differ from `cycle`'s
  /// (~0: never). The unit's own registers may change before then (a MATMUL
  /// streams rows, the pipe drains), but nothing outside it sees them.
  std::uint64_t quiet_until(std::uint64_t cycle, bool q_valid) const;
  /// The outputs other units and the counters see are the same in `a` and `b`.
  static bool same_outputs(const Comb& a, const Comb& b) {
    return a.q_pop == b.q_pop && a.done == b.done && a.busy == b.busy && a.stall_weights == b.stall_weights &&
           a.stall_drain == b.stall_drain && a.in_valid == b.in_valid && a.sp_wr == b.sp_wr;
  }
  bool vectors_in_flight() const { return m_r.inflight[0] + m_r.inflight[1] != 0; }
  /// Idle with nothing in flight: with no queued instruction every output is
  /// low and an edge changes nothing.
  bool idle() const { return m_r.state == State::kIdle && !m_r.s2_valid && m_pipe_n == 0; }
  /// Its registers can still change without a new instruction.
  bool active() const { return m_r.state != State::kIdle || m_pipe_n != 0 || m_r.s2_valid; }

  enum class State : std::uint8_t { kIdle, kWait, kRun };
  struct Regs {
    State state = State::kIdle;
    Opcode op = Opcode::NOP;
    std::uint16_t n_rows = 0, issued = 0;
    std::uint8_t buf = 0;
    bool s2_valid = false, s2_last = false;
    std::uint32_t inflight[2] = {0, 0};
    bool operator==(const Regs&) const = default;
  };
  const Regs& regs() const { return m_r; }

 private:
  std::uint16_t total() const { return m_r.op == Opcode::LOAD_WEIGHTS ? static_cast<std::uint16_t>(m_rows) : m_r.n_rows; }
  struct InFlight {
    std::uint64_t cycle;  // write-back cycle
    std::uint8_t buf;
  };
  std::uint32_t m_rows, m_latency;
  Regs m_r;
  // Vectors in the array, oldest first: a ring (at most ROWS + COLS in flight).
  std::vector<InFlight> m_pipe;
  std::size_t m_pipe_head = 0, m_pipe_n = 0;
};

// Per-cycle logic, inline: it runs for every evaluated cycle.
inline void ModelCompute::comb(std::uint64_t cycle, bool q_valid, Comb& c) const {
  const Regs& r = m_r;
  c.q_pop = r.state == State::kIdle && q_valid;
  c.busy = r.state != State::kIdle;
  c.stall_weights = r.state == State::kWait && r.op == Opcode::LOAD_WEIGHTS;
  c.stall_drain = r.state == State::kWait && r.op == Opcode::OUTPUT;
  c.issue = r.state == State::kRun && r.issued < total();
  c.done = r.s2_valid && r.s2_last;
  c.in_valid = r.s2_valid && r.op == Opcode::MATMUL;
  c.sp_wr = r.s2_valid && r.op == Opcode::OUTPUT;
  c.wb = m_pipe_n != 0 && m_pipe[m_pipe_head].cycle == cycle;
}

}  // namespace mxc
