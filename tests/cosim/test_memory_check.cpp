// The data check against faults in what the RTL writes, injected by a memory that alters
// each write before it lands: bytes written with their strobe low, bytes left unwritten,
// and when each mismatch is stamped. A 4x4 tile, GEMM 8x8x8 unless noted.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bridge/rtl_tile.h"
#include "cosim/results_json.h"
#include "cosim/system_run.h"
#include "cosim/workload.h"
#include "models/core/hex.h"
#include "models/core/ideal_memory.h"
#include "models/mxu/functional_tile.h"
#include "models/mxu/mlp_program.h"

using namespace mxc;

namespace {

/// An ideal memory that passes each write through `alter` before storing it, and records the
/// writes as they arrived in `writes` (which outlives the run's memories).
class AlteringMemory final : public MemoryTarget {
 public:
  using Alter = std::function<void(MemRequest&)>;
  AlteringMemory(const std::string& name, Time latency, std::size_t outstanding, Alter alter,
                 std::vector<MemRequest>& writes)
      : m_inner(name, latency, outstanding), m_alter(std::move(alter)), m_writes(writes) {
    m_inner.set_completion([this](const MemResponse& r) { complete(r); });
  }
  std::string name() const override { return m_inner.name(); }
  Time next_event_time() const override { return m_inner.next_event_time(); }
  void advance_to(Time t) override { m_inner.advance_to(t); }
  bool can_accept(const MemRequest& r) const override { return m_inner.can_accept(r); }
  bool send(const MemRequest& r, Time now) override {
    if (!r.write) return m_inner.send(r, now);
    MemRequest q = r;
    if (m_alter) m_alter(q);
    if (!m_inner.send(q, now)) return false;
    m_writes.push_back(r);
    return true;
  }
  void backdoor_write(std::uint64_t a, std::span<const std::uint8_t> d) override { m_inner.backdoor_write(a, d); }
  void backdoor_read(std::uint64_t a, std::span<std::uint8_t> o) const override { m_inner.backdoor_read(a, o); }

 private:
  IdealMemory m_inner;
  Alter m_alter;
  std::vector<MemRequest>& m_writes;  // as the tile sent them
};

/// Bytes whose strobe is low written anyway, as 0xee: an RTL driving WSTRB all ones.
void strobe_ignored(MemRequest& q) {
  if (q.byte_enable.empty()) return;
  for (std::size_t i = 0; i < q.data.size(); ++i)
    if (!q.byte_enable[i]) q.data[i] = 0xee;
  q.byte_enable.clear();
}

/// Bytes that should be written as zero are not written: an RTL whose strobe follows the data.
void zeros_dropped(MemRequest& q) {
  std::vector<bool> e = q.byte_enable.empty() ? std::vector<bool>(q.data.size(), true) : q.byte_enable;
  for (std::size_t i = 0; i < q.data.size(); ++i)
    if (q.data[i] == 0) e[i] = false;
  q.byte_enable = e;
}

struct Run {
  SystemRunResult result;
  std::vector<MemRequest> writes;
};

Run run_with(SystemRunOptions o, AlteringMemory::Alter alter) {
  Run r;
  o.make_memory = [&](std::uint32_t, const std::string& name) {
    return std::make_unique<AlteringMemory>(name, o.system.ideal_latency_ps, o.system.ideal_outstanding, alter,
                                            r.writes);
  };
  r.result = run_system(o);
  REQUIRE_FALSE(r.writes.empty());
  return r;
}

SystemRunOptions gemm(bool model) {
  SystemRunOptions o;
  o.workload.shape = {8, 8, 8, DType::kInt8};
  o.system.compare_model = model;
  return o;
}

SystemRunOptions mlp(bool model) {
  SystemRunOptions o = gemm(model);
  o.workload.kind = "mlp";
  return o;
}

SystemRunOptions program(const std::string& file) {
  SystemRunOptions o;
  o.workload.kind = "program";
  o.workload.program_files = {std::string(MXCOSIM_SOURCE_DIR) + "/tests/programs/" + file};
  return o;
}

std::vector<Mismatch> of(const SystemRunResult& r, const std::string& where_prefix, const std::string& field) {
  std::vector<Mismatch> out;
  for (const Mismatch& m : r.mismatches)
    if (m.where.rfind(where_prefix, 0) == 0 && m.field == field) out.push_back(m);
  return out;
}

std::string show(const SystemRunResult& r) {
  std::string s = r.error;
  for (std::size_t i = 0; i < std::min<std::size_t>(r.mismatches.size(), 3); ++i)
    s += "\n" + to_string(r.mismatches[i]);
  return s;
}

}  // namespace

TEST_CASE("the runs below pass on an unaltered memory") {
  for (const SystemRunOptions& o : {gemm(true), gemm(false), mlp(false), program("bf16_relu.s")}) {
    const Run r = run_with(o, nullptr);
    INFO(o.workload.kind << ": " << show(r.result));
    CHECK(r.result.passed);
    CHECK(r.result.memory_bytes_checked > 0);
  }
}

TEST_CASE("bytes written with their strobe low fail the run, the model compared or not") {
  // C is 8x8 int32 in two blocks of 4 columns: each row 16 bytes in a 32-byte pitch, written
  // as one beat whose upper 16 bytes have their strobes low. Those bytes start poisoned
  // (de ad be ef, repeating) in the design's memory and the reference's alike.
  const Workload w = build_run_workload(gemm(false));
  const MatrixLayout& c = w.regions[0].at(0).layout;
  REQUIRE(c.row_pitch() == 32);
  const std::uint64_t pad = c.row_addr(0, 0) + 16;
  for (const bool model : {false, true}) {
    INFO("model compared: " << model);
    const Run r = run_with(gemm(model), strobe_ignored);
    CHECK_FALSE(r.result.passed);
    const std::vector<Mismatch> data = of(r.result, "data scoreboard", "bytes (hex)");
    const auto at = std::find_if(data.begin(), data.end(), [&](const Mismatch& m) {
      return m.id == "chip0.memory @" + hex(pad);
    });
    REQUIRE(at != data.end());
    CHECK(at->expected == "de ad be ef de ad be ef de ad be ef de ad be ef");
    CHECK(at->actual == "ee ee ee ee ee ee ee ee ee ee ee ee ee ee ee ee");
    // Only the element bytes are the results': no element differs.
    CHECK(of(r.result, "data scoreboard", "int32 value").empty());
    // The memory alters the write after the tile's monitor logged it with the RTL's strobes, so
    // the correlator's byte mask (tests/checkers) has nothing to see: the memory check alone
    // catches it, the model compared or not.
    CHECK(of(r.result, "timing memory source", "byte mask").empty());
  }
  const Run m = run_with(mlp(false), strobe_ignored);
  INFO(show(m.result));
  CHECK_FALSE(m.result.passed);
  CHECK_FALSE(of(m.result, "data scoreboard", "bytes (hex)").empty());
}

TEST_CASE("bytes the RTL never writes differ from the reference, zeros included") {
  for (const SystemRunOptions& o : {gemm(false), mlp(false)}) {
    const Run r = run_with(o, zeros_dropped);
    INFO(o.workload.kind << ": " << show(r.result));
    CHECK_FALSE(r.result.passed);
    CHECK(r.result.mismatch_count > 0);
  }
  // bf16_relu.s stores [3.0, 0.0] as bf16 at 0x3000: 40 40 00 00 (its comments). The two zero
  // bytes, never written, keep the poison there: be ef at 0x3002.
  const Run r = run_with(program("bf16_relu.s"), zeros_dropped);
  INFO(show(r.result));
  CHECK_FALSE(r.result.passed);
  REQUIRE(r.result.mismatch_count == 1);
  const Mismatch& m = r.result.mismatches[0];
  CHECK(m.where == "data scoreboard");
  CHECK(m.id == "chip0.memory @0x3002");
  CHECK(m.field == "bytes (hex)");
  CHECK(m.expected == "00 00");
  CHECK(m.actual == "be ef");
}

TEST_CASE("the stores of every program start poisoned, but for what a load reads before its program stores it") {
  // 32-byte beats. Tile 0: load 0x1000 (4 bytes), store 0x1000 (8), store two rows of 4 at 0x2000
  // and 0x2040, load 0x2000 (4, stored: poisoned), load 0x2040 (8: 0x2044.. not stored yet, kept).
  // Tile 1 loads 0x2050 (4): another tile, in no set order with tile 0's stores, so it is kept.
  const auto dma = [](Opcode op, std::uint64_t addr, std::uint16_t rows, std::uint16_t cols) {
    Instr in;
    in.op = op;
    in.hbm_addr = addr;
    in.rows = rows;
    in.cols = cols;
    in.hbm_stride = 0x40;
    return in;
  };
  const std::vector<Program> programs = {
      {dma(Opcode::DMA_LOAD, 0x1000, 1, 4), dma(Opcode::DMA_STORE, 0x1000, 1, 8),
       dma(Opcode::DMA_STORE, 0x2000, 2, 4), dma(Opcode::DMA_LOAD, 0x2000, 1, 4),
       dma(Opcode::DMA_LOAD, 0x2040, 1, 8)},
      {dma(Opcode::DMA_LOAD, 0x2050, 1, 4)}};
  SparseMemory mem;
  mem.write(0x1000, std::vector<std::uint8_t>(0x100, 0x11));
  mem.write(0x2000, std::vector<std::uint8_t>(0x100, 0x11));
  poison_stores(mem, programs, 32);
  // [first, end) of each poisoned range; every other byte keeps its 0x11.
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> poisoned = {
      {0x1004, 0x1020}, {0x2000, 0x2020}, {0x2040, 0x2044}, {0x2048, 0x2050}, {0x2054, 0x2060}};
  for (const std::uint64_t base : {0x1000u, 0x2000u})
    for (std::uint64_t a = base; a < base + 0x100; ++a) {
      const bool p = std::any_of(poisoned.begin(), poisoned.end(), [&](const auto& r) {
        return r.first <= a && a < r.second;
      });
      INFO("address " << hex(a));
      CHECK(mem.read(a, 1)[0] == (p ? poison_byte(a) : 0x11));
    }
  CHECK(poison_byte(0x1004) == 0xde);
  CHECK(poison_byte(0x2047) == 0xef);
}

TEST_CASE("an MLP's H, stored and loaded back, starts poisoned: its zeros left unwritten fail the run") {
  // H was left at 0 when only result regions were poisoned: an RTL that drops the zero bytes of
  // H's writes (ReLU makes many) then read back the 0 the memory held and passed.
  const SystemRunOptions o = mlp(false);
  const Workload w = build_run_workload(o);
  const TileGeometry geo = rtl_tile_geometry(o.system.rows, o.system.cols);
  MlpShape shape{8, 8, 8, 8, DType::kInt8, 0};
  const MatrixLayout h = place_mlp(shape, geo).h;
  // The zero elements of H (int8: one byte each), from the reference.
  SparseMemory ref = w.images[0].clone();
  FunctionalTile(geo, ref).run(w.programs[0][0]);
  std::set<std::uint64_t> zeros;
  for (std::uint32_t i = 0; i < h.rows; ++i)
    for (std::uint32_t j = 0; j < h.cols; ++j)
      if (ref.read(h.addr(i, j), 1)[0] == 0) zeros.insert(h.addr(i, j));
  REQUIRE_FALSE(zeros.empty());
  const auto in_h = [&](std::uint64_t a) { return h.base <= a && a < h.base + h.bytes(); };
  const Run r = run_with(o, [&](MemRequest& q) {
    if (in_h(q.addr)) zeros_dropped(q);
  });
  INFO(show(r.result));
  CHECK_FALSE(r.result.passed);
  // Each H byte that differs is one of its zeros, left with the poison; every zero so.
  std::set<std::uint64_t> differing;
  for (const Mismatch& m : of(r.result, "data scoreboard", "bytes (hex)")) {
    const std::uint64_t at = std::stoull(m.id.substr(m.id.find('@') + 1), nullptr, 16);
    if (!in_h(at)) continue;
    std::string want, got;
    for (std::uint64_t a = at; a < at + (m.expected.size() + 1) / 3; ++a) {
      differing.insert(a);
      char b[3];
      std::snprintf(b, sizeof b, "%02x", poison_byte(a));
      want += (want.empty() ? "" : " ") + std::string("00");
      got += (got.empty() ? "" : " ") + std::string(b);
    }
    CHECK(m.expected == want);
    CHECK(m.actual == got);
  }
  CHECK(differing == zeros);
}

TEST_CASE("the memory check compares the whole image beside the result elements") {
  // Every page the reference's image holds: A's and B's, and C's with its padding, less C's
  // 8 x 8 int32 elements, which the element check compares.
  const SystemRunOptions o = gemm(false);
  const Workload w = build_run_workload(o);
  std::set<std::uint64_t> pages;
  w.images[0].for_each_page([&](std::uint64_t base, std::span<const std::uint8_t>) { pages.insert(base); });
  const MatrixLayout& c = w.regions[0].at(0).layout;
  for (std::uint64_t a = c.base / 4096 * 4096; a < c.base + c.bytes(); a += 4096) pages.insert(a);
  const Run r = run_with(o, nullptr);
  INFO(show(r.result));
  CHECK(r.result.passed);
  CHECK(r.result.elements_checked == 64);
  CHECK(r.result.memory_bytes_checked == pages.size() * 4096 - 64 * 4);
}

TEST_CASE("a program's elements are the 4-byte words of the memory it compares: the same bytes") {
  // int8_matmul.s loads W from 0x1000 and X from 0x2000 and stores C at 0x3000, each well inside
  // its 4 KiB page: the reference's image holds those three pages, each compared whole. A program
  // has no result elements apart from its memory, so the elements are those bytes in words.
  const SystemRunOptions o = program("int8_matmul.s");
  const Run r = run_with(o, nullptr);
  INFO(show(r.result));
  CHECK(r.result.passed);
  const std::uint64_t pages_bytes = 3 * 4096;
  CHECK(r.result.memory_bytes_checked == pages_bytes);
  CHECK(r.result.elements_checked == pages_bytes / 4);
  const auto j = results_json(o, r.result);
  CHECK(j["memory_bytes_checked"] == pages_bytes);
  CHECK(j["elements_checked"] == pages_bytes / 4);
}

TEST_CASE("a data mismatch is stamped with the last write to its address, inside the failure waveform") {
  // --inject-fault 0 flips C[0][0]: its time is that of the write that stored it, well before
  // the end of the run (the failure waveform's window ends there).
  SystemRunOptions o = gemm(true);
  o.inject_fault = 0;
  const Workload w = build_run_workload(o);
  const std::uint64_t addr = w.regions[0].at(0).layout.addr(0, 0);
  const Run r = run_with(o, nullptr);
  REQUIRE(r.result.mismatch_count == 1);
  const Mismatch& m = r.result.mismatches[0];
  CHECK(m.id == "chip0.C[0][0] @" + hex(addr));
  Time last = 0;
  bool found = false;
  for (const MemRequest& q : r.writes)
    if (q.addr <= addr && addr < q.addr + q.bytes && (!found || q.issue >= last)) {
      last = q.issue;
      found = true;
    }
  REQUIRE(found);
  CHECK(m.time == last);
  CHECK(m.time < r.result.sim_time_ps);
}
