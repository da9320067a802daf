#pragma once
// The harness shared by the correlation tests: a memory decorator that logs
// every accepted request, the memory systems under test, and a runner that
// puts one tile and its memory on a kernel and records everything the tile
// shows to the outside (events, requests, ICI rows, counters); a program run
// on the verilated tile and on the model, compared exactly (check_same); the
// same for two model tiles on two chips joined by a delay line.
#include <catch2/catch.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bridge/rtl_tile.h"
#include "cosim/kernel.h"
#include "models/core/ideal_memory.h"
#include "models/core/sparse_memory.h"
#include "models/hbm/config_loader.h"
#include "models/hbm/hbm_model.h"
#include "models/mxu/model_tile.h"
#include "models/mxu/tile.h"

namespace mxc::corr {

/// One request as the memory accepted it.
struct LoggedRequest {
  std::uint64_t addr = 0;
  std::uint32_t bytes = 0;
  bool write = false;
  Time issue = 0, accept = 0;
  bool operator==(const LoggedRequest&) const = default;
};

/// Forwards to a memory and records every accepted request.
class LoggingMemory final : public MemoryTarget {
 public:
  explicit LoggingMemory(MemoryTarget& inner) : m_inner(inner) {
    m_inner.set_completion([this](const MemResponse& r) { complete(r); });
  }
  std::string name() const override { return m_inner.name() + ".log"; }
  Time next_event_time() const override { return m_inner.next_event_time(); }
  void advance_to(Time now) override { m_inner.advance_to(now); }
  bool can_accept(const MemRequest& req) const override { return m_inner.can_accept(req); }
  bool send(const MemRequest& req, Time now) override {
    if (!m_inner.send(req, now)) return false;
    log.push_back({req.addr, req.bytes, req.write, req.issue, now});
    masks.push_back(req.byte_enable);
    return true;
  }
  void backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) override {
    m_inner.backdoor_write(addr, data);
  }
  void backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const override { m_inner.backdoor_read(addr, out); }

  std::vector<LoggedRequest> log;
  std::vector<std::vector<bool>> masks;  ///< Each logged request's byte mask (empty: all bytes).

 private:
  MemoryTarget& m_inner;
};

/// The memory system both tiles see (each gets its own instance).
struct MemorySpec {
  std::string label;
  std::function<std::unique_ptr<MemoryTarget>()> make;
};

inline MemorySpec ideal(Time latency_ps, std::size_t outstanding = 64) {
  std::ostringstream s;
  s << "ideal " << latency_ps / 1000 << " ns, " << outstanding << " outstanding";
  return {s.str(), [=] { return std::make_unique<IdealMemory>("mem", latency_ps, outstanding); }};
}

inline MemorySpec hbm_memory(const std::string& preset) {
  return {"hbm " + preset, [=] {
            hbm::MemoryConfig cfg =
                hbm::load_memory_config(std::string(MXCOSIM_SOURCE_DIR) + "/configs/hbm/" + preset);
            return std::make_unique<hbm::HbmModel>("hbm", cfg);
          }};
}

struct RowSeen {
  std::uint64_t cycle = 0;
  std::uint32_t dst = 0;
  std::uint16_t row = 0, bytes = 0;
  bool to_acc = false, bf16 = false, last = false;
  bool operator==(const RowSeen&) const = default;
};

struct RunLog {
  bool finished = false;
  std::string state;
  std::uint64_t cycles = 0;
  std::vector<InstrEvent> events;
  std::vector<LoggedRequest> requests;
  std::vector<std::vector<bool>> masks;  ///< Byte masks of the requests (empty: all bytes).
  std::vector<RowSeen> rows;
  std::vector<std::pair<std::string, std::uint64_t>> perf;
};

/// How a run is wired: kernel registration order, and how often the chip
/// takes outbound rows (every `drain_every` tile cycles; 1 = at once).
struct Wiring {
  bool memory_first = false;
  std::uint64_t drain_every = 1;
};

/// Runs `program` on `tile` over `mem` on a kernel (by default the tile
/// registered first, then the memory, as cosim/program_run.cpp does); rows
/// loop back.
inline RunLog run_on(Tile& tile, Component& mem, LoggingMemory& log, const Program& program, const Wiring& w) {
  tile.load_program(program);
  Kernel kernel;
  if (w.memory_first) kernel.add(mem);
  kernel.add(tile);
  if (!w.memory_first) kernel.add(mem);
  RunLog out;
  kernel.run(
      [&] {
        auto& q = tile.outbound();
        while (!q.empty() && tile.cycles() % w.drain_every == 0) {
          const IciRow& r = q.front();
          out.rows.push_back({tile.cycles(), r.dst, r.row, r.bytes, r.to_acc, r.bf16, r.last});
          tile.push_inbound(std::move(q.front()));
          q.pop_front();
        }
        return tile.finished();
      },
      tile.clock().edge(2'000'000));
  out.finished = tile.finished();
  out.state = tile.state();
  out.cycles = tile.cycles();
  out.events = tile.instr_events();
  out.requests = log.log;
  out.masks = log.masks;
  out.perf = tile.perf_counters();
  return out;
}

/// Instructions for directed programs.
inline Instr make(Opcode op, std::uint16_t rows, std::uint16_t cols, std::uint16_t sp_row) {
  Instr in;
  in.op = op;
  in.rows = rows;
  in.cols = cols;
  in.sp_row = sp_row;
  return in;
}

inline Instr dma(Opcode op, std::uint16_t rows, std::uint16_t bytes, std::uint16_t sp_row, std::uint64_t addr,
                 std::uint32_t stride = 32) {
  Instr in = make(op, rows, bytes, sp_row);
  in.hbm_addr = addr;
  in.hbm_stride = stride;
  return in;
}

inline Instr send(std::uint16_t rows, std::uint16_t bytes, std::uint16_t sp_row, std::uint16_t remote, bool to_acc) {
  Instr in = make(Opcode::ICI_SEND, rows, bytes, sp_row);
  in.remote_row = remote;
  in.to_acc = to_acc;
  in.dtype = DType::kInt8;
  return in;
}

/// One program run on the verilated tile and on the model, each on its own memory.
struct Pair {
  RunLog rtl, model;
  bool rtl_error = false;  ///< The RTL tile's error output at the end of its run.
};

/// How run_pair runs them besides the wiring: the RTL's seed (its initial state), a memory
/// image both memories start with, and a look at the RTL's memory (with its run) after its run.
struct PairOptions {
  Wiring wiring;
  std::uint64_t rtl_seed = 7;
  const SparseMemory* image = nullptr;
  std::function<void(const MemoryTarget&, const RunLog&)> rtl_memory;
};

inline Pair run_pair(std::uint32_t rows, std::uint32_t cols, const MemorySpec& spec, const Program& program,
                     const PairOptions& o) {
  const auto load = [&](MemoryTarget& mem) {
    if (o.image)
      o.image->for_each_page([&](std::uint64_t a, std::span<const std::uint8_t> b) { mem.backdoor_write(a, b); });
  };
  Pair p;
  {
    auto mem = spec.make();
    load(*mem);
    LoggingMemory log(*mem);
    RtlTileConfig cfg;
    cfg.rows = rows;
    cfg.cols = cols;
    cfg.seed = o.rtl_seed;
    auto tile = make_rtl_tile(cfg, log);
    p.rtl = run_on(*tile, log, log, program, o.wiring);
    p.rtl_error = tile->hardware_error();
    if (o.rtl_memory) o.rtl_memory(*mem, p.rtl);
  }
  {
    auto mem = spec.make();
    load(*mem);
    LoggingMemory log(*mem);
    ModelTileConfig cfg;
    cfg.geometry = rtl_tile_geometry(rows, cols);
    cfg.memory_first = o.wiring.memory_first;
    ModelTile tile(cfg, log);
    p.model = run_on(tile, log, log, program, o.wiring);
  }
  return p;
}

inline Pair run_both(std::uint32_t rows, std::uint32_t cols, const MemorySpec& spec, const Program& program,
                     const Wiring& w = {}) {
  PairOptions o;
  o.wiring = w;
  return run_pair(rows, cols, spec, program, o);
}

inline std::string fmt(const LoggedRequest& r) {
  std::ostringstream s;
  s << (r.write ? "write" : "read") << " 0x" << std::hex << r.addr << std::dec << " " << r.bytes << " B issued "
    << r.issue << " ps accepted " << r.accept << " ps";
  return s.str();
}

/// A byte mask as 0s and 1s, byte 0 first ("all" when every byte is written).
inline std::string mask_string(const std::vector<bool>& mask) {
  if (mask.empty()) return "all";
  std::string s;
  for (const bool on : mask) s += on ? '1' : '0';
  return s;
}

/// Whether the two runs show the same to the outside (what check_same asserts), without asserting.
inline bool same_runs(const Pair& p) {
  const auto same_events = [](const std::vector<InstrEvent>& a, const std::vector<InstrEvent>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].start != b[i].start || a[i].end != b[i].end) return false;
    return true;
  };
  return p.rtl.finished && p.model.finished && same_events(p.rtl.events, p.model.events) &&
         p.rtl.requests == p.model.requests && p.rtl.masks == p.model.masks && p.rtl.rows == p.model.rows &&
         p.rtl.perf == p.model.perf && p.rtl.cycles == p.model.cycles;
}

/// Asserts identical runs; on a difference names the first one with both values.
inline void check_same(const Pair& p, const Program& program) {
  REQUIRE(p.rtl.finished);
  INFO("model state: " << p.model.state);
  REQUIRE(p.model.finished);
  REQUIRE(p.rtl.events.size() == program.size());
  REQUIRE(p.model.events.size() == program.size());
  for (std::size_t i = 0; i < program.size(); ++i) {
    const InstrEvent& a = p.rtl.events[i];
    const InstrEvent& b = p.model.events[i];
    if (a.start != b.start || a.end != b.end) {
      FAIL("first differing instruction #" << i << " (" << describe(program[i]) << "): rtl start " << a.start
                                            << " end " << a.end << ", model start " << b.start << " end " << b.end);
    }
  }
  const std::size_t n = std::min(p.rtl.requests.size(), p.model.requests.size());
  for (std::size_t i = 0; i < n; ++i)
    if (!(p.rtl.requests[i] == p.model.requests[i]))
      FAIL("first differing memory request #" << i << ": rtl " << fmt(p.rtl.requests[i]) << ", model "
                                               << fmt(p.model.requests[i]));
  CHECK(p.rtl.requests.size() == p.model.requests.size());
  // Byte masks too (WSTRB), rows wider than a scratchpad row included.
  for (std::size_t i = 0; i < n; ++i)
    if (p.rtl.masks[i] != p.model.masks[i])
      FAIL("first differing byte mask: request #" << i << " (" << fmt(p.rtl.requests[i]) << "): rtl "
                                                  << mask_string(p.rtl.masks[i]) << ", model "
                                                  << mask_string(p.model.masks[i]));
  CHECK(p.rtl.rows == p.model.rows);
  CHECK(p.rtl.perf == p.model.perf);
  CHECK(p.rtl.cycles == p.model.cycles);
}

/// Carries rows from one tile to another after a fixed delay (a stand-in for
/// the ICI fabric), registered after the tiles; `timed` delivers them with
/// their kernel time (Tile::push_inbound_at).
class DelayLine final : public Component {
 public:
  DelayLine(Time delay, Tile& to, bool timed) : m_delay(delay), m_to(to), m_timed(timed) {}
  std::string name() const override { return "delay"; }
  Time next_event_time() const override { return m_rows.empty() ? kNever : m_rows.front().first; }
  void advance_to(Time now) override {
    while (!m_rows.empty() && m_rows.front().first <= now) {
      if (m_timed)
        m_to.push_inbound_at(std::move(m_rows.front().second), now);
      else
        m_to.push_inbound(std::move(m_rows.front().second));
      m_rows.pop_front();
    }
  }
  void take(IciRow row, Time now) { m_rows.emplace_back(now + m_delay, std::move(row)); }

 private:
  Time m_delay;
  Tile& m_to;
  bool m_timed;
  std::deque<std::pair<Time, IciRow>> m_rows;
};

/// What both tiles of a two-chip run showed to the outside.
struct TwoChipRun {
  std::vector<InstrEvent> events[2];
  std::vector<std::pair<std::string, std::uint64_t>> perf[2];
  std::vector<LoggedRequest> requests[2];
  std::vector<std::vector<bool>> masks[2];
  std::uint64_t evaluated = 0;  ///< Chip 1's evaluated cycles.
};

/// Two model tiles on memories of their own (from `mem0`, `mem1`): chip 0 runs p0 and its rows
/// reach chip 1, which runs p1, `delay` after they leave (DelayLine, `timed` as there).
inline TwoChipRun run_two_model_chips(Program p0, Program p1, const TileGeometry& geometry, const MemorySpec& mem0,
                                      const MemorySpec& mem1, Time delay, bool timed, bool skip) {
  auto m0 = mem0.make(), m1 = mem1.make();
  LoggingMemory log0(*m0), log1(*m1);
  ModelTileConfig c0, c1;
  c0.geometry = c1.geometry = geometry;
  c0.skip_idle = c1.skip_idle = skip;
  c1.name = "tile1";
  c1.chip = 1;
  ModelTile t0(c0, log0), t1(c1, log1);
  t0.load_program(std::move(p0));
  t1.load_program(std::move(p1));
  DelayLine line(delay, t1, timed);
  Kernel k;
  k.add(t0);
  k.add(log0);
  k.add(t1);
  k.add(log1);
  k.add(line);
  k.run([&] {
    auto& q = t0.outbound();
    while (!q.empty()) {
      line.take(std::move(q.front()), k.now());
      q.pop_front();
    }
    return t0.finished() && t1.finished();
  });
  REQUIRE(t0.finished());
  REQUIRE(t1.finished());
  TwoChipRun r;
  const ModelTile* tiles[2] = {&t0, &t1};
  const LoggingMemory* logs[2] = {&log0, &log1};
  for (int c = 0; c < 2; ++c) {
    r.events[c] = tiles[c]->instr_events();
    r.perf[c] = tiles[c]->perf_counters();
    r.requests[c] = logs[c]->log;
    r.masks[c] = logs[c]->masks;
  }
  r.evaluated = t1.evaluated_cycles();
  return r;
}

}  // namespace mxc::corr
