#pragma once
// DmaBench: one verilated mxu_dma (model class V) on a 1 GHz tile clock, its
// AXI4 port on an Axi4SlaveTransactor over an IdealMemory, and a C++
// scratchpad behind its two scratchpad ports. Runs descriptors cycle by
// cycle and records what the tests check independently: every AR/AW burst,
// the IDs in flight, scratchpad writes, desc_done pulses.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <verilated.h>

#include "bridge/axi4_pins.h"
#include "bridge/axi4_slave_transactor.h"
#include "bridge/verilated_ports.h"
#include "bridge/verilator_seed.h"
#include "models/core/ideal_memory.h"

namespace mxc::test {

struct DmaDesc {
  bool store = false;
  std::uint64_t addr = 0;
  std::uint32_t stride = 0;
  std::uint32_t rows = 1;
  std::uint32_t row_bytes = 1;
  std::uint32_t sp_row = 0;
};

struct BurstSeen {
  std::uint64_t addr = 0;
  std::uint32_t beats = 0;
  std::uint32_t id = 0;
  bool operator==(const BurstSeen&) const = default;
};

struct DmaBenchOptions {
  std::uint64_t seed = 1;
  Time mem_latency = 40 * kPsPerNs;
  std::uint32_t request_bytes = 0;
  Axi4Backpressure backpressure;
  double sp_wr_ready_low = 0.0;  ///< Probability the scratchpad write port is busy in a cycle.
  bool random_interleave = true;
};

/// Bursts a descriptor must produce, from the AXI rules alone: each row is cut
/// where it would cross 4 KiB or exceed 256 beats.
inline std::vector<BurstSeen> expected_bursts(const DmaDesc& d, std::uint32_t beat) {
  std::vector<BurstSeen> out;
  for (std::uint32_t r = 0; r < d.rows; ++r) {
    std::uint64_t a = d.addr + std::uint64_t{r} * d.stride;
    std::uint32_t left = (d.row_bytes + beat - 1) / beat;
    while (left > 0) {
      const std::uint32_t to_page = static_cast<std::uint32_t>((4096 - a % 4096) / beat);
      const std::uint32_t n = std::min({left, to_page, 256u});
      out.push_back({a, n, 0});
      a += std::uint64_t{n} * beat;
      left -= n;
    }
  }
  return out;
}

template <class V, std::uint32_t kBeat, std::uint32_t kBanks, std::uint32_t kSpRows, std::uint32_t kMaxOut>
class DmaBench {
 public:
  static constexpr std::uint32_t kBeatBytes = kBeat;
  static constexpr std::uint32_t kRowBytes = kBeat * kBanks;
  static constexpr std::uint32_t kRows = kSpRows;
  static constexpr std::uint32_t kMaxOutstanding = kMaxOut;
  static constexpr Time kPeriod = 1000;  // 1 GHz

  explicit DmaBench(const DmaBenchOptions& opt = {})
      : m_opt(opt),
        m_ctx(std::make_unique<VerilatedContext>()),
        m_mem("hbm", opt.mem_latency, 1024),
        m_axi(make_cfg(opt), m_mem),
        m_rng(opt.seed * 7919 + 1) {
    sp.assign(std::size_t{kSpRows} * kRowBytes, 0);
    // Random initial register state: reset must make it irrelevant.
    m_ctx->randReset(2);
    m_ctx->randSeed(verilator_seed(opt.seed));
    m_top = std::make_unique<V>(m_ctx.get(), "dma");
    m_top->rst_n = 0;
    idle_inputs();
    for (int i = 0; i < 4; ++i) clock();
    m_top->rst_n = 1;
  }
  ~DmaBench() { m_top->final(); }

  IdealMemory& mem() { return m_mem; }
  Axi4SlaveTransactor& axi() { return m_axi; }
  V& top() { return *m_top; }

  /// Fills the scratchpad and memory region [base, base+bytes) with patterns.
  void fill_patterns(std::uint64_t base, std::size_t bytes) {
    for (std::size_t i = 0; i < sp.size(); ++i) sp[i] = static_cast<std::uint8_t>(0xa5 ^ (i * 7));
    std::vector<std::uint8_t> img(bytes);
    for (std::size_t i = 0; i < bytes; ++i) img[i] = static_cast<std::uint8_t>((i * 131 + (i >> 8) * 17 + 3) & 0xff);
    m_mem.backdoor_write(base, img);
  }

  /// Runs one descriptor to completion plus `tail` idle cycles; returns the
  /// cycle of the desc_done pulse, counting the first cycle desc_valid is
  /// high as cycle 0.
  std::uint64_t run(const DmaDesc& d, std::uint64_t limit = 200000, std::uint32_t tail = 30) {
    ar.clear();
    aw.clear();
    ax_cycles.clear();
    data_beats.clear();
    done_pulses = 0;
    stall_mem_cycles = 0;
    bool offered = true, accepted = false, done = false;
    m_start = m_cycle;
    std::uint64_t done_at = 0;
    for (std::uint64_t n = 0; n < limit; ++n) {
      m_top->desc_valid = offered;
      m_top->desc_store = d.store;
      m_top->desc_addr = d.addr;
      m_top->desc_stride = d.stride;
      m_top->desc_rows = static_cast<std::uint16_t>(d.rows);
      m_top->desc_row_bytes = static_cast<std::uint16_t>(d.row_bytes);
      m_top->desc_sp_row = d.sp_row;
      const bool fire = step();
      if (fire && offered) {
        if (accepted) throw std::logic_error("descriptor accepted twice");
        accepted = true;
        offered = false;
      }
      if (m_done_now) {
        if (!accepted) throw std::logic_error("desc_done before the descriptor was accepted");
        if (!done) done_at = m_cycle - 1 - m_start;
        done = true;
      }
      if (done && m_cycle - m_start >= done_at + tail) return done_at;
    }
    throw std::runtime_error("descriptor did not finish within " + std::to_string(limit) + " cycles");
  }

  /// Scratchpad row r as bytes.
  std::vector<std::uint8_t> sp_row(std::uint32_t r) const {
    return {sp.begin() + std::size_t{r} * kRowBytes, sp.begin() + std::size_t{r + 1} * kRowBytes};
  }

  // Observations of the last run(); cycles count from its cycle 0.
  std::vector<BurstSeen> ar, aw;
  std::vector<std::uint64_t> ax_cycles;   ///< AR/AW handshakes.
  std::vector<std::uint64_t> data_beats;  ///< R (loads) or W (stores) handshakes.
  std::uint32_t done_pulses = 0;
  std::size_t max_reads_in_flight = 0, max_writes_in_flight = 0;
  std::uint64_t sp_writes = 0, sp_write_stalls = 0, stall_mem_cycles = 0;
  std::vector<std::uint8_t> sp;

 private:
  static Axi4SlaveConfig make_cfg(const DmaBenchOptions& opt) {
    Axi4SlaveConfig c;
    c.name = "dma_axi";
    c.beat_bytes = kBeat;
    c.request_bytes = opt.request_bytes;
    c.seed = opt.seed;
    c.backpressure = opt.backpressure;
    c.random_interleave = opt.random_interleave;
    return c;
  }

  void idle_inputs() {
    m_top->desc_valid = 0;
    m_top->sp_wr_ready = 1;
    Axi4SlaveSignals s;
    s.rdata.assign(kBeat, 0);
    write_slave_pins(*m_top, s);
  }

  void clock() {
    m_top->clk = 0;
    m_top->eval();
    m_top->clk = 1;
    m_top->eval();
  }

  bool chance(double p) { return p > 0 && static_cast<long double>(m_rng()) < std::ldexp(static_cast<long double>(p), 64); }

  // One cycle; returns whether the descriptor handshake happened at its edge.
  bool step() {
    const Time now = m_cycle * kPeriod;
    m_mem.advance_to(now);
    Axi4SlaveSignals s;
    m_axi.drive(s);
    write_slave_pins(*m_top, s);
    m_top->sp_wr_ready = !chance(m_opt.sp_wr_ready_low);
    verilated::pack(m_top->sp_rd_data, m_rd_data);
    m_top->clk = 0;
    m_top->eval();

    Axi4MasterSignals m;
    read_master_pins(*m_top, m);
    const bool desc_fire = m_top->desc_valid && m_top->desc_ready;
    m_done_now = m_top->desc_done;
    if (m_done_now) ++done_pulses;
    if (m_top->stall_mem) ++stall_mem_cycles;
    observe_axi(m, s);
    observe_scratchpad();
    m_axi.on_edge(m, s, now);

    m_top->clk = 1;
    m_top->eval();
    ++m_cycle;
    return desc_fire;
  }

  void observe_axi(const Axi4MasterSignals& m, const Axi4SlaveSignals& s) {
    if (m.arvalid && s.arready) {
      if (!m_reads.insert(m.arid).second) throw std::logic_error("AR reuses ID " + std::to_string(m.arid) + " in flight");
      ar.push_back({m.araddr, m.arlen + 1, m.arid});
      ax_cycles.push_back(m_cycle - m_start);
      max_reads_in_flight = std::max(max_reads_in_flight, m_reads.size());
    }
    if (s.rvalid && m.rready) data_beats.push_back(m_cycle - m_start);
    if (m.wvalid && s.wready) data_beats.push_back(m_cycle - m_start);
    if (s.rvalid && m.rready && s.rlast) m_reads.erase(s.rid);
    if (m.awvalid && s.awready) {
      if (!m_writes.insert(m.awid).second) throw std::logic_error("AW reuses ID " + std::to_string(m.awid) + " in flight");
      aw.push_back({m.awaddr, m.awlen + 1, m.awid});
      ax_cycles.push_back(m_cycle - m_start);
      max_writes_in_flight = std::max(max_writes_in_flight, m_writes.size());
    }
    if (s.bvalid && m.bready) m_writes.erase(s.bid);
  }

  void observe_scratchpad() {
    if (m_top->sp_wr_valid && !m_top->sp_wr_ready) ++sp_write_stalls;
    if (m_top->sp_wr_valid && m_top->sp_wr_ready) {
      std::vector<std::uint8_t> data(kBeat), strb((kBeat + 7) / 8);
      verilated::unpack(m_top->sp_wr_data, data);
      verilated::unpack(m_top->sp_wr_strb, strb);
      const std::size_t base = std::size_t{m_top->sp_wr_row} * kRowBytes + std::size_t{m_top->sp_wr_bank} * kBeat;
      for (std::uint32_t i = 0; i < kBeat; ++i)
        if ((strb[i / 8] >> (i % 8)) & 1) sp.at(base + i) = data[i];
      ++sp_writes;
    }
    // Synchronous read: the data of this cycle's request is presented in the
    // next cycle; otherwise the port holds a poison pattern.
    m_rd_data.assign(kBeat, 0xee);
    if (m_top->sp_rd_en) {
      const std::size_t base = std::size_t{m_top->sp_rd_row} * kRowBytes + std::size_t{m_top->sp_rd_bank} * kBeat;
      std::copy(sp.begin() + base, sp.begin() + base + kBeat, m_rd_data.begin());
    }
  }

  DmaBenchOptions m_opt;
  std::unique_ptr<VerilatedContext> m_ctx;
  std::unique_ptr<V> m_top;
  IdealMemory m_mem;
  Axi4SlaveTransactor m_axi;
  std::mt19937_64 m_rng;
  std::uint64_t m_cycle = 0, m_start = 0;
  bool m_done_now = false;
  std::vector<std::uint8_t> m_rd_data = std::vector<std::uint8_t>(kBeat, 0xee);
  std::set<std::uint32_t> m_reads, m_writes;
};

}  // namespace mxc::test
