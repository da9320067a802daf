#include "models/mxu/model_tile.h"

#include <algorithm>
#include <bit>
#include <sstream>
#include <stdexcept>

namespace mxc {

namespace {

ModelAxiConfig axi_config(const ModelTileConfig& cfg) {
  ModelAxiConfig a;
  a.beat_bytes = cfg.geometry.beat_bytes;
  a.source = cfg.source_id;
  a.memory_first = cfg.memory_first;
  return a;
}

int unit_index(Opcode op) {
  switch (unit_of(op)) {
    case Unit::dma: return 0;
    case Unit::compute: return 1;
    case Unit::ici: return 2;
    default: return 3;
  }
}

}  // namespace

ModelTile::ModelTile(const ModelTileConfig& cfg, MemoryTarget& mem)
    : m_cfg(cfg),
      m_clock(ClockDomain::from_mhz(cfg.name + ".clk", cfg.clock_mhz)),
      m_axi(axi_config(cfg), mem, m_clock),
      m_dma(cfg.geometry.beat_bytes, cfg.geometry.sp_row_bytes() / cfg.geometry.beat_bytes, cfg.max_outstanding),
      m_compute(cfg.geometry.rows, cfg.geometry.cols) {
  m_cfg.geometry.validate();
  if (m_cfg.ici_out_queue == 0) throw std::invalid_argument(m_cfg.name + ": ici_out_queue must be >= 1");
}

void ModelTile::load_program(Program program) {
  m_program = std::move(program);
  m_tracker.load(m_program.size());
  m_dispatch.resize(m_program.size());
  for (std::size_t i = 0; i < m_program.size(); ++i) {
    const Instr& in = m_program[i];
    Dispatch& d = m_dispatch[i];
    d.unit = static_cast<std::uint8_t>(unit_index(in.op));
    const bool fence = in.op == Opcode::FENCE;
    d.limit[0] = fence ? 0 : in.wait_dma;
    d.limit[1] = fence ? 0 : in.wait_compute;
    d.limit[2] = fence ? 0 : in.wait_ici;
    d.fence = fence;
  }
  m_next_cmd = 0;
  m_cycle = 0;
  m_sleeping = false;
  m_stream = m_w_stream = false;
  m_w_stream_end = kNone;
  m_inbound_wake = kNone;
  m_compute_wake = kNone;
  m_finished = m_program.empty();
}

std::uint64_t ModelTile::wake_cycle() const {
  // The earliest cycle at which an input of the frozen state changes, or the
  // compute unit's outputs may.
  const std::uint64_t after = m_cycle == 0 ? 0 : m_cycle - 1;
  if (m_w_stream)
    return std::min({m_axi.next_visible_after(after), m_w_stream_end, m_compute_wake, m_inbound_wake});
  if (!m_stream) return std::min({m_axi.next_visible_after(after), m_compute_wake, m_inbound_wake});
  // In an R stream read completions move the stream's end (the port follows them).
  return std::min({m_axi.next_write_visible_after(after), m_axi.stream_end(), m_compute_wake, m_inbound_wake});
}

void ModelTile::push_inbound_at(IciRow row, Time now) {
  m_in_queue.push_back(std::move(row));
  if (!m_sleeping) return;  // seen by the next evaluated edge, as in the RTL
  // The tile ran its edge at `now` (if any) before the deliverer: the row is
  // seen at the first edge after `now`.
  std::uint64_t c = m_clock.cycle_at_or_after(now);
  if (m_clock.edge(c) == now) ++c;
  m_inbound_wake = std::min(m_inbound_wake, std::max(c, m_cycle));
}

Time ModelTile::next_event_time() const {
  if (m_finished) return kNever;
  if (!m_sleeping) return m_clock.edge(m_cycle);
  const std::uint64_t w = wake_cycle();
  return w == kNone ? kNever : m_clock.edge(std::max(w, m_cycle));
}

void ModelTile::stop_at(Time now) {
  if (m_finished || !m_sleeping) return;
  // The kernel ran every step before `now`, so the tile never slept past its wake-up cycle;
  // bounded by it all the same, as the wake-up's own catch-up is.
  const std::uint64_t wake = wake_cycle();
  wake_to(std::max(std::min(m_clock.cycle_at_or_after(now), wake), m_cycle));
}

void ModelTile::wake_to(std::uint64_t target) {
  // The skipped cycles repeat the last evaluated one: same counter increments.
  const std::uint64_t skipped = target - m_cycle;
  m_inc_run += skipped;
  if (m_stream) {  // one R beat per skipped cycle
    m_dma.free_ids(m_axi.end_stream(target));
    m_stream = false;
  }
  if (m_w_stream) {  // one W beat per skipped cycle
    if (target > m_w_stream_end)
      throw std::logic_error(m_cfg.name + ": W stream skipped past cycle " + std::to_string(m_w_stream_end));
    std::uint16_t sent[256];  // w_stream_length() <= 256
    const auto n = static_cast<std::uint32_t>(skipped);
    m_dma.w_stream(n, sent);
    m_axi.take_w_beats(sent, n);
    m_w_stream = false;
    m_w_stream_end = kNone;
  }
  // The compute unit may have streamed rows or drained the array meanwhile,
  // invisibly to the rest: replay it alone.
  const bool q_valid = !m_queue[1].empty();
  for (std::uint64_t c = m_cycle; c < target && m_compute.active(); ++c) {
    ModelCompute::Comb cc;
    m_compute.comb(c, q_valid, cc);
    m_compute.edge(c, cc, nullptr);
  }
  m_cycle = target;
  m_sleeping = false;
  m_inbound_wake = kNone;
  m_compute_wake = kNone;
}

void ModelTile::advance_to(Time now) {
  if (m_finished) return;
  if (m_sleeping) wake_to(std::max(m_clock.cycle_at_or_after(now), m_cycle));
  const Change change = step(m_clock.edge(m_cycle));
  if (m_finished || change == Change::kSome || !m_cfg.skip_idle) return;
  // Sleep only when a future input change is known or a completion will come,
  // nothing waits to be offered to memory, and the ICI ports are quiet (their
  // inputs change at times the tile cannot see from here).
  if (!m_in_queue.empty() || !m_out_queue.empty() || m_axi.has_unsent() || (m_inc_mask >> 9 & 1) != 0 ||
      m_ici.regs().state == ModelIci::State::kWaitIn)
    return;
  // Everything outside the compute unit is at a fixed point; the compute unit
  // may still change inside (streaming a MATMUL, draining the array) as long
  // as its outputs hold: they do from this cycle until quiet_until.
  const bool q_valid = !m_queue[1].empty();
  ModelCompute::Comb next;
  m_compute.comb(m_cycle, q_valid, next);
  if (!ModelCompute::same_outputs(next, m_last_cc)) return;
  // The last write-back's cycle is evaluated, not skipped: its edge empties
  // the array, which can end the program (finished after that edge, as the
  // RTL's idle is).
  m_compute_wake = std::min(m_compute.quiet_until(m_cycle, q_valid), m_compute.last_writeback());
  if (m_compute_wake <= m_cycle) return;
  if (change == Change::kWriteStream) {
    // The store's W path repeats its cycle (a read issued, one pushed, one
    // beat sent) until the burst's last read or a WLAST beat; B responses
    // wake the tile as for any sleep.
    const std::uint32_t n = m_dma.w_stream_length();
    if (n == 0) return;
    m_w_stream = m_sleeping = true;
    m_w_stream_end = m_cycle + n;
    return;
  }
  if (change == Change::kReadStream) {
    // Everything else holds while R beats stream in: the DMA writes one to
    // the scratchpad per cycle (the compute unit's outputs hold, so no OUTPUT
    // row competes) and frees IDs on RLAST, which matters only when an
    // address is still to be sent (then the stream ends with the burst, and
    // the DMA loads the address in the cycle it wakes in).
    if (m_axi.begin_stream(m_cycle, m_dma.regs().ag.valid())) m_stream = m_sleeping = true;
    return;
  }
  if (wake_cycle() != kNone || m_axi.in_target() != 0) m_sleeping = true;
}

ModelTile::Change ModelTile::step(Time now) {
  const std::uint64_t c = m_cycle;
  ++s_evaluated;
  m_axi.clear_activity();
  ModelAxiOut s;
  m_axi.drive(c, s);

  // A unit idle with nothing queued has all outputs low and its edge changes
  // nothing: skip it (most evaluated cycles are DMA bursts).
  const bool in_valid = !m_in_queue.empty();
  const bool compute_idle = m_queue[1].empty() && m_compute.idle();
  const bool in_flight = m_compute.vectors_in_flight();  // the core's registered counts, as the dispatcher sees them
  const bool ici_idle = !in_valid && m_queue[2].empty() && m_ici.idle();
  ModelCompute::Comb cc;
  if (!compute_idle) m_compute.comb(c, !m_queue[1].empty(), cc);
  ModelIci::Comb ic;
  if (!ici_idle) {
    ModelIci::Inputs ii;
    ii.q_valid = !m_queue[2].empty();
    ii.in_valid = in_valid;
    ii.in_to_acc = in_valid && m_in_queue.front().to_acc;
    ii.acc_ready = !cc.wb;
    ii.sp_wr_ready = !cc.sp_wr;
    ii.out_ready = m_out_queue.size() < m_cfg.ici_out_queue;
    m_ici.comb(ii, ic);
  }
  ModelDma::Comb dc;
  m_dma.comb(s, dc);
  const bool dma_sp_ready = !cc.sp_wr && !ic.sp_wr_valid;
  const bool desc_fire = !m_queue[0].empty() && dc.desc_ready;

  // Dispatcher.
  bool fire = false;
  int head_unit = 3;
  if (m_head_valid) {
    const Dispatch& d = m_dispatch[m_head];
    head_unit = d.unit;
    bool met = true;
    for (int u = 0; u < 3; ++u)
      if (d.limit[u] != isa::kNoWait && m_outstanding[u] > d.limit[u]) met = false;
    if (d.fence && in_flight) met = false;
    const bool room = head_unit == 3 || m_queue[head_unit].size() < kUnitQueueDepth;
    fire = met && room;
  }
  const bool cmd_ready = !m_head_valid || fire;
  const bool cmd_valid = m_next_cmd < m_program.size();

  // Edge: transactor handshakes, then every register.
  m_axi.on_edge(dc.axi, s, now);
  if (ic.in_fire) m_in_queue.pop_front();
  const bool done[3] = {dc.done, cc.done, ic.done};
  const unsigned done_bits = unsigned{dc.done} | unsigned{cc.done} << 1 | unsigned{ic.done} << 2;
  if (done_bits || fire)
    if (const auto fault = m_tracker.on_edge(done_bits, fire, static_cast<unsigned>(head_unit), c))
      // The model's own units and dispatcher drive these: an edge they cannot explain is its bug.
      throw std::logic_error(fault->text(m_cfg.name, c));

  m_dma.edge(dc, s, desc_fire, desc_fire ? &m_program[m_queue[0].front()] : nullptr, dma_sp_ready);
  if (!compute_idle) m_compute.edge(c, cc, cc.q_pop ? &m_program[m_queue[1].front()] : nullptr);
  bool emitted = false;
  if (ici_idle)
    m_ici.hold();
  else
    m_ici.edge(ic, ic.q_pop ? &m_program[m_queue[2].front()] : nullptr, m_row, emitted);
  if (emitted) {
    IciRow row = m_row;
    row.src = m_cfg.chip;
    row.data.assign(m_cfg.geometry.sp_row_bytes(), 0);
    m_out_queue.push_back(std::move(row));
  }
  const bool pops[3] = {desc_fire, cc.q_pop, ic.q_pop};
  for (int u = 0; u < 3; ++u) {
    if (pops[u]) m_queue[u].pop_front();
    const bool push = fire && head_unit == u;
    if (push) m_queue[u].push_back(m_head);
    m_outstanding[u] = m_outstanding[u] + (push ? 1 : 0) - (done[u] ? 1 : 0);
  }
  const bool stall_dispatch = m_head_valid && !fire;
  const bool cmd_taken = cmd_ready && cmd_valid;
  if (cmd_ready) {
    m_head_valid = cmd_valid;
    if (cmd_valid) m_head = m_next_cmd++;
  }

  const std::uint32_t inc = 1u | unsigned{dc.busy} << 1 | unsigned{cc.busy} << 2 | unsigned{ic.busy} << 3 |
                            unsigned{cc.in_valid} << 4 | unsigned{stall_dispatch} << 5 | unsigned{dc.stall_mem} << 6 |
                            unsigned{cc.stall_weights} << 7 | unsigned{cc.stall_drain} << 8 |
                            unsigned{ic.stall_credit} << 9 | unsigned{ic.stall_wait} << 10 | unsigned{fire} << 11;
  if (inc != m_inc_mask) {
    flush_counters();
    m_inc_mask = inc;
  }
  ++m_inc_run;
  ++m_cycle;

  const bool idle = !m_head_valid && m_outstanding[0] == 0 && m_outstanding[1] == 0 && m_outstanding[2] == 0 &&
                    !m_compute.vectors_in_flight();
  m_finished = m_next_cmd == m_program.size() && m_tracker.completed() == m_program.size() && idle && m_axi.idle() &&
               m_out_queue.empty() && m_in_queue.empty();

  m_last_cc = cc;
  // The compute unit's own registers are left out: advance_to checks that its
  // outputs hold instead.
  // The array draining changes what a FENCE waits for.
  const bool drained = in_flight && !m_compute.vectors_in_flight();
  if (m_axi.activity() || fire || cmd_taken || ic.in_fire || done[0] || done[1] || done[2] || pops[0] || pops[1] ||
      pops[2] || m_ici.changed() || drained)
    return Change::kSome;
  if (m_dma.changed()) {
    if (m_dma.read_beat_only() && !m_axi.write_beat()) return Change::kReadStream;
    if (m_dma.write_beat_only() && m_axi.write_beat() && !m_axi.read_activity()) return Change::kWriteStream;
    return Change::kSome;
  }
  return m_axi.read_activity() || m_axi.write_beat() ? Change::kSome : Change::kNone;
}

void ModelTile::flush_counters() {
  for (std::uint32_t m = m_inc_mask; m != 0; m &= m - 1) m_perf[static_cast<std::size_t>(std::countr_zero(m))] += m_inc_run;
  m_inc_run = 0;
}

std::vector<std::pair<std::string, std::uint64_t>> ModelTile::perf_counters() const {
  const auto& names = perf_counter_names();
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (std::size_t i = 0; i < names.size() && i < kCounters; ++i)
    out.emplace_back(names[i], m_perf[i] + ((m_inc_mask >> i) & 1) * m_inc_run);
  return out;
}

std::string ModelTile::state() const {
  std::ostringstream s;
  s << m_cfg.name << ": cycle " << m_cycle << ", " << m_next_cmd << "/" << m_program.size() << " sent, "
    << m_tracker.progress(m_program);
  s << "; axi " << (m_axi.idle() ? "idle" : "busy") << (m_sleeping ? ", sleeping" : "");
  return s.str();
}

}  // namespace mxc
