#pragma once
// The RtlTile implementation for one verilated tile class V (one size).
// Included only by rtl_tile.cpp.
#include <verilated.h>
#include <verilated_fst_c.h>

#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>

#include "bridge/axi4_pins.h"
#include "bridge/rtl_tile.h"
#include "bridge/verilated_ports.h"
#include "bridge/verilator_seed.h"
#include "bridge/waveform_guard.h"

namespace mxc {

template <typename V>
class VerilatedTile final : public RtlTile {
 public:
  VerilatedTile(const RtlTileConfig& cfg, const TileGeometry& geo, MemoryTarget& mem)
      : m_cfg(cfg),
        m_geo(geo),
        m_clock(ClockDomain::from_mhz(cfg.name + ".clk", cfg.clock_mhz)),
        m_ctx(std::make_unique<VerilatedContext>()),
        m_axi(axi_config(cfg, geo), mem),
        m_rng(cfg.seed ^ 0x5eed'c0de'0000'0000ULL),
        m_monitor(cfg.name) {
    // Randomised initial state (--x-initial unique), reproducible from the seed.
    m_ctx->randReset(2);
    m_ctx->randSeed(verilator_seed(cfg.seed));
    m_ctx->traceEverOn(true);
    m_model = std::make_unique<V>(m_ctx.get(), "mxu_tile");
    if (!cfg.waveform.empty()) {
      m_wave_guard = std::make_unique<WaveformGuard>(cfg.waveform);
      m_trace = std::make_unique<VerilatedFstC>();
      m_model->trace(m_trace.get(), 99);
      m_trace->open(cfg.waveform.c_str());
      if (!m_trace->isOpen()) throw std::runtime_error("cannot open waveform file '" + cfg.waveform + "'");
    }
    // Reset: long enough to flush every pipeline stage of the array.
    m_model->clk = 0;
    m_model->rst_n = 0;
    m_model->cmd_valid = 0;
    m_model->ici_in_valid = 0;
    m_model->ici_out_ready = 0;
    write_slave_pins(*m_model, Axi4SlaveSignals{});
    for (const char* ch : {"cmd", "axi.ar", "axi.r", "axi.aw", "axi.w", "axi.b", "ici.out", "ici.in"})
      m_handshake.add_channel(m_cfg.name + "." + ch);
    for (std::uint32_t i = 0; i < geo.rows + geo.cols + 4; ++i) {
      eval_inputs();
      clock_edge();
      // The tile's outputs that are a source's valid (AR, AW, W, ICI out), low from the first edge on.
      read_master_pins(*m_model, m_master);
      m_handshake.observe_reset(1, m_master.arvalid, i);
      m_handshake.observe_reset(3, m_master.awvalid, i);
      m_handshake.observe_reset(4, m_master.wvalid, i);
      m_handshake.observe_reset(6, m_model->ici_out_valid, i);
    }
    m_model->rst_n = 1;
  }

  ~VerilatedTile() override {
    if (m_trace) {
      m_trace->close();
      clear_fst_date(m_cfg.waveform);
    }
    m_model->final();
  }

  // ---- Tile ----
  std::string name() const override { return m_cfg.name; }
  const ClockDomain& clock() const override { return m_clock; }
  void load_program(Program program) override {
    m_program = std::move(program);
    m_words.clear();
    for (const Instr& in : m_program) m_words.push_back(encode(in));
    m_next_cmd = 0;
    m_monitor.load(m_program.size());
    m_cycle = 0;
    m_finished = m_program.empty();
  }
  bool finished() const override { return m_finished; }
  std::uint64_t cycles() const override { return m_cycle; }
  std::size_t completed_instructions() const override { return m_monitor.completed(); }
  const std::vector<InstrEvent>& instr_events() const override { return m_monitor.events(); }
  std::string state() const override {
    std::ostringstream s;
    s << m_cfg.name << ": cycle " << m_cycle << ", " << m_next_cmd << "/" << m_program.size() << " sent, "
      << m_monitor.progress(m_program);
    s << "; axi " << (m_axi.idle() ? "idle" : "busy");
    if (m_axi.live_bursts()) s << " (" << m_axi.live_bursts() << " bursts unfinished)";
    if (m_axi.early_w_beats()) s << " (" << m_axi.early_w_beats() << " W beats held with no AW for them)";
    s << ", tile " << (m_model->idle ? "idle" : "busy");
    return s.str();
  }

  Time next_event_time() const override { return m_finished ? kNever : m_clock.edge(m_cycle); }

  void advance_to(Time now) override {
    if (m_finished) return;
    drive_inputs();
    eval_inputs();  // combinational outputs settle on this cycle's inputs
    sample_edge(now);
    clock_edge();
    ++m_cycle;
    m_finished = m_next_cmd == m_program.size() && m_monitor.completed() == m_program.size() && m_model->idle &&
                 m_axi.idle() && m_out_queue.empty() && m_in_queue.empty();
  }

  // ---- RtlTile ----
  std::deque<IciRow>& outbound() override { return m_out_queue; }
  void push_inbound(IciRow row) override { m_in_queue.push_back(std::move(row)); }
  std::vector<std::pair<std::string, std::uint64_t>> perf_counters() const override {
    const auto& names = perf_counter_names();
    std::vector<std::uint8_t> bytes(names.size() * 8);
    verilated::unpack(m_model->perf, bytes);
    std::vector<std::pair<std::string, std::uint64_t>> out;
    for (std::size_t i = 0; i < names.size(); ++i) {
      std::uint64_t v;
      std::memcpy(&v, bytes.data() + 8 * i, 8);
      out.emplace_back(names[i], v);
    }
    return out;
  }
  bool hardware_error() const override { return m_model->error; }
  const TileGeometry& geometry() const override { return m_geo; }
  const Axi4SlaveTransactor& axi() const override { return m_axi; }
  const HandshakeChecker& handshake() const override { return m_handshake; }

 private:
  static Axi4SlaveConfig axi_config(const RtlTileConfig& cfg, const TileGeometry& geo) {
    Axi4SlaveConfig a;
    a.name = cfg.name + ".axi";
    a.beat_bytes = geo.beat_bytes;
    a.source = cfg.source_id;
    a.seed = cfg.seed;
    a.backpressure = cfg.axi_backpressure;
    // Random R/B interleaving only with backpressure: a timing run (none) must match the
    // performance model, which mirrors the oldest-first choice and cannot mirror a random
    // draw (docs/dma.md, "When R beats interleave in a run").
    const Axi4Backpressure& bp = a.backpressure;
    a.random_interleave = bp.arready_low > 0 || bp.awready_low > 0 || bp.wready_low > 0 || bp.rvalid_gap > 0 ||
                          bp.bvalid_gap > 0;
    return a;
  }

  bool chance(double p) { return p > 0 && static_cast<double>(m_rng() >> 11) * 0x1.0p-53 < p; }

  void drive_inputs() {
    // Command driver: hold an offered command until it is taken.
    if (m_cmd_taken) {
      m_model->cmd_valid = 0;
      m_cmd_taken = false;
    }
    if (!m_model->cmd_valid && m_next_cmd < m_words.size() && !chance(m_cfg.cmd_gap)) {
      m_model->cmd_valid = 1;
      const InstrWord& w = m_words[m_next_cmd];
      std::uint8_t bytes[32];
      std::memcpy(bytes, w.data(), 32);  // little-endian host: word 0 = bits 63:0
      verilated::pack(m_model->cmd_data, bytes);
    }
    m_axi.drive(m_slave);
    write_slave_pins(*m_model, m_slave);
    // ICI inbound: offer the oldest queued row.
    if (!m_in_queue.empty()) {
      const IciRow& r = m_in_queue.front();
      m_model->ici_in_valid = 1;
      m_model->ici_in_row = r.row;
      m_model->ici_in_to_acc = r.to_acc;
      m_model->ici_in_bf16 = r.bf16;
      m_model->ici_in_bytes = r.bytes;
      m_model->ici_in_last = r.last;
      verilated::pack(m_model->ici_in_data, r.data);
    } else {
      m_model->ici_in_valid = 0;
    }
    // ICI outbound: ready while the outbound queue has room.
    m_model->ici_out_ready = m_out_queue.size() < m_cfg.ici_out_queue && !chance(m_cfg.ici_out_stall);
  }

  /// Appends an integer's bytes (little-endian) to the payload being built.
  template <typename T>
  void put(T v) {
    for (std::size_t i = 0; i < sizeof(T); ++i) m_payload.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
  }
  template <typename Port>
  void put_port(const Port& port, std::size_t bytes) {
    const std::size_t at = m_payload.size();
    m_payload.resize(at + bytes);
    verilated::unpack(port, std::span<std::uint8_t>(m_payload.data() + at, bytes));
  }
  void observe(std::size_t ch, bool valid, bool ready, Time now) {
    m_handshake.observe(ch, valid, ready, m_payload, m_cycle, now);
    m_payload.clear();
  }

  /// Every channel's valid, ready and payload as they stand before the edge.
  /// A payload matters only while valid is high and the channel stalls (or
  /// stalled a cycle ago), so only then is it packed.
  void check_handshakes(Time now) {
    auto& m = *m_model;
    const auto needs = [&](std::size_t ch, bool valid, bool ready) { return m_handshake.needs_payload(ch, valid, ready); };
    if (needs(0, m.cmd_valid, m.cmd_ready)) put_port(m.cmd_data, 32);
    observe(0, m.cmd_valid, m.cmd_ready, now);
    if (needs(1, m_master.arvalid, m_slave.arready))
      put(m_master.arid), put(m_master.araddr), put(m_master.arlen), put(m_master.arsize), put(m_master.arburst);
    observe(1, m_master.arvalid, m_slave.arready, now);
    if (needs(2, m_slave.rvalid, m_master.rready)) {
      put(m_slave.rid), put(m_slave.rresp), put(m_slave.rlast);
      m_payload.insert(m_payload.end(), m_slave.rdata.begin(), m_slave.rdata.end());
    }
    observe(2, m_slave.rvalid, m_master.rready, now);
    if (needs(3, m_master.awvalid, m_slave.awready))
      put(m_master.awid), put(m_master.awaddr), put(m_master.awlen), put(m_master.awsize), put(m_master.awburst);
    observe(3, m_master.awvalid, m_slave.awready, now);
    if (needs(4, m_master.wvalid, m_slave.wready)) {
      m_payload.insert(m_payload.end(), m_master.wdata.begin(), m_master.wdata.end());
      for (bool b : m_master.wstrb) m_payload.push_back(b);
      put(m_master.wlast);
    }
    observe(4, m_master.wvalid, m_slave.wready, now);
    if (needs(5, m_slave.bvalid, m_master.bready)) put(m_slave.bid), put(m_slave.bresp);
    observe(5, m_slave.bvalid, m_master.bready, now);
    if (needs(6, m.ici_out_valid, m.ici_out_ready)) {
      put(m.ici_out_dst), put(m.ici_out_row), put(m.ici_out_to_acc), put(m.ici_out_bf16), put(m.ici_out_bytes),
          put(m.ici_out_last);
      put_port(m.ici_out_data, m_geo.sp_row_bytes());
    }
    observe(6, m.ici_out_valid, m.ici_out_ready, now);
    if (needs(7, m.ici_in_valid, m.ici_in_ready)) {
      put(m.ici_in_row), put(m.ici_in_to_acc), put(m.ici_in_bf16), put(m.ici_in_bytes), put(m.ici_in_last);
      put_port(m.ici_in_data, m_geo.sp_row_bytes());
    }
    observe(7, m.ici_in_valid, m.ici_in_ready, now);
  }

  void sample_edge(Time now) {
    if (m_model->cmd_valid && m_model->cmd_ready) {
      ++m_next_cmd;
      m_cmd_taken = true;  // withdrawn with the next cycle's inputs, after the edge
    }
    read_master_pins(*m_model, m_master);
    check_handshakes(now);
    m_axi.on_edge(m_master, m_slave, now);
    if (m_model->ici_in_valid && m_model->ici_in_ready) m_in_queue.pop_front();
    if (m_model->ici_out_valid && m_model->ici_out_ready) {
      IciRow r;
      r.src = m_cfg.chip;
      r.dst = m_model->ici_out_dst;
      r.row = m_model->ici_out_row;
      r.to_acc = m_model->ici_out_to_acc;
      r.bf16 = m_model->ici_out_bf16;
      r.bytes = m_model->ici_out_bytes;
      r.last = m_model->ici_out_last;
      r.data.resize(m_geo.sp_row_bytes());
      verilated::unpack(m_model->ici_out_data, r.data);
      m_out_queue.push_back(std::move(r));
    }
    // Monitors: dispatches are in program order; each unit completes in order. Pins the
    // program cannot explain fail the run with their record (RtlPinError).
    m_monitor.on_edge(m_model->ev_done, m_model->ev_dispatch, m_model->ev_unit, m_cycle, now);
  }

  /// The rising edge. The clock then drops without an evaluation of its
  /// own: the next cycle's evaluation of its inputs (always before the next
  /// edge) sees the falling edge too, which saves one eval per cycle; there
  /// is no negative-edge logic in the tile.
  void clock_edge() {
    // The waveform's time is in picoseconds (its timescale), half a clock
    // period for each half: cycle c (after the reset's cycles) has its
    // inputs at (reset + c) periods and its rising edge half a period later.
    m_model->clk = 1;
    m_model->eval();
    m_ctx->timeInc(m_clock.period() / 2);
    if (m_trace && m_cycle >= m_cfg.waveform_from_cycle && m_cycle <= m_cfg.waveform_to_cycle)
      m_trace->dump(m_ctx->time());
    m_model->clk = 0;
    m_ctx->timeInc(m_clock.period() - m_clock.period() / 2);
  }

  /// Inputs settle with the clock low (and the previous edge's results visible).
  void eval_inputs() {
    m_model->eval();
    if (m_trace && m_cycle >= m_cfg.waveform_from_cycle && m_cycle <= m_cfg.waveform_to_cycle)
      m_trace->dump(m_ctx->time());
  }

  RtlTileConfig m_cfg;
  TileGeometry m_geo;
  ClockDomain m_clock;
  std::unique_ptr<VerilatedContext> m_ctx;
  std::unique_ptr<V> m_model;
  std::unique_ptr<WaveformGuard> m_wave_guard;  // before m_trace: it outlives the writer's close
  std::unique_ptr<VerilatedFstC> m_trace;
  Axi4SlaveTransactor m_axi;
  Axi4MasterSignals m_master;
  Axi4SlaveSignals m_slave;
  HandshakeChecker m_handshake;
  std::vector<std::uint8_t> m_payload;
  std::mt19937_64 m_rng;

  Program m_program;
  std::vector<InstrWord> m_words;
  std::size_t m_next_cmd = 0;
  bool m_cmd_taken = false;
  InstrMonitor m_monitor;
  std::uint64_t m_cycle = 0;
  bool m_finished = true;
  std::deque<IciRow> m_out_queue, m_in_queue;
};

}  // namespace mxc
