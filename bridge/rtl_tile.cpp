#include "bridge/rtl_tile.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "bridge/rtl_core_factory.h"

namespace mxc {

RtlTile::RtlTile(const RtlTileConfig& cfg, MemoryTarget& mem)
    : m_cfg(cfg),
      m_mem(mem),
      m_clock(ClockDomain::from_mhz(cfg.name + ".clk", cfg.clock_mhz)),
      m_core(make_rtl_core(cfg.rows, cfg.cols, cfg.seed)) {
  if (m_cfg.max_outstanding == 0) throw std::invalid_argument(cfg.name + ": max_outstanding must be >= 1");
  if (!m_cfg.waveform.empty()) m_core->open_trace(m_cfg.waveform);
  // Reset long enough to flush every pipeline stage of the array.
  m_core->set_reset(true);
  m_core->set_weights(false, false, {});
  m_core->set_input(false, {}, false, 0, false);
  m_core->set_read(false, 0);
  for (std::uint32_t i = 0; i < m_core->pipe_latency() + 2; ++i) m_core->cycle();
  m_core->set_reset(false);
  m_mem.set_completion([this](const MemResponse& r) { on_response(r); });
}

RtlTile::~RtlTile() = default;

void RtlTile::load_program(Program program) {
  for (const Instr& in : program) check_instruction(in);
  m_program = std::move(program);
  m_pc = 0;
  m_phase = Phase::kIdle;
  m_cycle = 0;
  m_events.clear();
  m_start_edge = 0;
}

void RtlTile::check_instruction(const Instr& in) const {
  const auto fail = [&](const std::string& why) {
    throw std::invalid_argument(m_cfg.name + ": instruction '" + describe(in) + "': " + why);
  };
  if (in.buf > 1) fail("buf must be 0 or 1");
  switch (in.op) {
    case Opcode::kLoadWeights:
      if (in.rows == 0 || in.rows > m_cfg.rows) fail("rows must be in 1.." + std::to_string(m_cfg.rows));
      if (in.cols == 0 || in.cols > m_cfg.cols) fail("cols must be in 1.." + std::to_string(m_cfg.cols));
      break;
    case Opcode::kMatmul:
      if (in.cols == 0 || in.cols > m_cfg.rows) fail("cols (K) must be in 1.." + std::to_string(m_cfg.rows));
      if (in.rows == 0 || in.acc_addr + in.rows > m_core->acc_rows())
        fail("accumulator rows out of range 0.." + std::to_string(m_core->acc_rows()));
      break;
    case Opcode::kStore:
      if (in.cols == 0 || in.cols > m_cfg.cols) fail("cols must be in 1.." + std::to_string(m_cfg.cols));
      if (in.rows == 0 || in.acc_addr + in.rows > m_core->acc_rows())
        fail("accumulator rows out of range 0.." + std::to_string(m_core->acc_rows()));
      break;
  }
}

Time RtlTile::next_event_time() const {
  if (finished()) return kNever;
  return m_clock.edge(m_start_edge + m_cycle);
}

void RtlTile::begin_instruction(Time now) {
  const Instr& in = m_program[m_pc];
  m_events.push_back({m_pc, m_cycle, m_cycle});
  m_requests.clear();
  m_next_request = m_outstanding = m_responses = 0;
  m_step = 0;
  m_rows.assign(in.rows, {});
  if (in.op == Opcode::kStore) {
    m_phase = Phase::kWaitBuffers;
    return;
  }
  // Loads: one read request per matrix row.
  for (std::uint32_t r = 0; r < in.rows; ++r) {
    MemRequest req;
    req.id = m_next_id++;
    req.addr = in.addr + std::uint64_t{r} * in.stride;
    req.bytes = in.cols;
    req.source = m_cfg.source_id;
    req.issue = now;
    m_requests.push_back(std::move(req));
  }
  m_phase = Phase::kFetch;
}

void RtlTile::end_instruction() {
  m_events.back().end = m_cycle + 1;
  m_phase = Phase::kIdle;
  ++m_pc;
}

void RtlTile::issue_requests(Time now) {
  // At most one new request per cycle, as a single-ported DMA would.
  if (m_next_request >= m_requests.size() || m_outstanding >= m_cfg.max_outstanding) return;
  MemRequest& req = m_requests[m_next_request];
  req.issue = now;
  if (!m_mem.send(req, now)) return;  // refused: offer again next cycle
  ++m_next_request;
  ++m_outstanding;
}

void RtlTile::on_response(const MemResponse& resp) {
  --m_outstanding;
  ++m_responses;
  if (!resp.write) {
    // Request ids of this instruction are consecutive from the first one.
    const std::size_t row = resp.id - m_requests.front().id;
    m_rows.at(row) = resp.data;
  }
}

void RtlTile::advance_to(Time now) {
  if (m_pc >= m_program.size() && m_phase == Phase::kIdle) return;
  if (m_phase == Phase::kIdle) begin_instruction(now);
  const Instr& in = m_program[m_pc];

  // Default: nothing driven this cycle.
  m_core->set_weights(false, false, {});
  m_core->set_input(false, {}, false, 0, false);
  m_core->set_read(false, 0);
  bool done = false;
  const Phase phase = m_phase;  // what this cycle drives; m_phase may move on

  switch (phase) {
    case Phase::kFetch:
      issue_requests(now);
      if (m_responses == m_requests.size())
        m_phase = in.op == Opcode::kLoadWeights ? Phase::kWaitBuffers : Phase::kDrive;
      break;
    case Phase::kWaitBuffers: {
      // Loads into a buffer wait until no vector in flight uses it; a store
      // waits until every vector has reached the accumulators.
      const bool clear = in.op == Opcode::kStore ? m_core->inflight(0) == 0 && m_core->inflight(1) == 0
                                                 : m_core->inflight(in.buf) == 0;
      if (clear) m_phase = in.op == Opcode::kStore ? Phase::kReadOut : Phase::kDrive;
      break;
    }
    case Phase::kDrive:
      drive_cycle();
      ++m_step;
      done = in.op == Opcode::kLoadWeights ? m_step == m_cfg.rows : m_step == in.rows;
      break;
    case Phase::kReadOut:
      m_core->set_read(true, in.acc_addr + m_step);
      break;
    case Phase::kWriteBack:
      issue_requests(now);
      done = m_responses == m_requests.size();
      break;
    case Phase::kIdle:
      break;
  }

  m_core->cycle();

  if (phase == Phase::kReadOut) {
    // The read port registers its data at the edge that samples rd_en.
    if (!m_core->read_valid()) throw std::logic_error(m_cfg.name + ": accumulator read port did not answer");
    std::vector<std::int32_t> values(m_cfg.cols);
    m_core->read_data(values);
    m_rows[m_step].resize(std::size_t{in.cols} * 4);
    std::memcpy(m_rows[m_step].data(), values.data(), m_rows[m_step].size());
    if (m_step + 1 == in.rows) {
      for (std::uint32_t r = 0; r < in.rows; ++r) {
        MemRequest req;
        req.id = m_next_id++;
        req.addr = in.addr + std::uint64_t{r} * in.stride;
        req.bytes = in.cols * 4;
        req.write = true;
        req.data = m_rows[r];
        req.source = m_cfg.source_id;
        m_requests.push_back(std::move(req));
      }
      m_phase = Phase::kWriteBack;
    }
    ++m_step;
  }

  if (done) end_instruction();
  ++m_cycle;
}

void RtlTile::drive_cycle() {
  const Instr& in = m_program[m_pc];
  if (in.op == Opcode::kLoadWeights) {
    // Row ROWS-1 goes in first so that after ROWS shifts array row r holds
    // weight row r; rows past the tile's K are zero.
    const std::uint32_t r = m_cfg.rows - 1 - m_step;
    std::vector<std::int8_t> row(m_cfg.cols, 0);
    if (r < in.rows) std::memcpy(row.data(), m_rows[r].data(), in.cols);
    m_core->set_weights(true, in.buf, row);
  } else {
    std::vector<std::int8_t> vec(m_cfg.rows, 0);
    std::memcpy(vec.data(), m_rows[m_step].data(), in.cols);
    m_core->set_input(true, vec, in.buf, in.acc_addr + m_step, in.accumulate);
  }
}

std::string RtlTile::state() const {
  std::ostringstream s;
  s << m_cfg.name << ": cycle " << m_cycle << ", instruction " << m_pc << "/" << m_program.size();
  if (m_pc < m_program.size()) s << " (" << describe(m_program[m_pc]) << ")";
  static const char* kPhases[] = {"idle", "fetch", "wait-buffers", "drive", "read-out", "write-back"};
  s << ", phase " << kPhases[static_cast<int>(m_phase)] << ", requests " << m_next_request << "/"
    << m_requests.size() << " issued, " << m_outstanding << " outstanding, inflight " << m_core->inflight(0) << "/"
    << m_core->inflight(1);
  return s.str();
}

}  // namespace mxc
