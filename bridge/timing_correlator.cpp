#include "bridge/timing_correlator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "models/core/hex.h"

namespace mxc {

namespace {

std::string channel_name(std::uint32_t source, bool write) {
  return "timing memory source " + std::to_string(source) + (write ? " write" : " read");
}

}  // namespace

bool TimingTolerance::within(std::uint64_t expected, std::uint64_t actual) const {
  const std::uint64_t diff = actual > expected ? actual - expected : expected - actual;
  if (diff <= cycles) return true;
  return static_cast<double>(diff) <= percent / 100.0 * static_cast<double>(expected);
}

void TimingCorrelator::note(Mismatch m) {
  if (!m_first || m.time < m_first->time) m_first = m;
  report(std::move(m));
}

void TimingCorrelator::compare_instructions(const Program& program, const std::vector<InstrEvent>& rtl,
                                            const std::vector<InstrEvent>& model, const ClockDomain& clk) {
  const std::size_t n = std::min({program.size(), rtl.size(), model.size()});
  if (rtl.size() != model.size())
    note({clk.edge(n > 0 ? rtl[n - 1].end : 0), "timing instructions", "program", "instructions with timing",
          std::to_string(model.size()), std::to_string(rtl.size())});
  for (std::size_t i = 0; i < n; ++i) {
    const InstrEvent& r = rtl[i];
    const InstrEvent& m = model[i];
    m_instrs.push_back({i, program[i].op, r.start, r.end, m.start, m.end});
    s_rtl_cycles = std::max(s_rtl_cycles, r.end + 1);
    s_model_cycles = std::max(s_model_cycles, m.end + 1);
    const bool start_ok = m_instr_tol.within(m.start, r.start);
    const bool end_ok = m_instr_tol.within(m.end, r.end);
    if (start_ok && end_ok) continue;
    const std::string where = "timing instruction " + std::to_string(i);
    const std::string id = describe(program[i]);
    if (!start_ok) note({clk.edge(r.start), where, id, "start cycle", std::to_string(m.start), std::to_string(r.start)});
    if (!end_ok) note({clk.edge(r.end), where, id, "end cycle", std::to_string(m.end), std::to_string(r.end)});
  }
}

void TimingCorrelator::compare_cycles(std::uint64_t rtl, std::uint64_t model, const ClockDomain& clk,
                                      const std::string& where) {
  if (!m_instr_tol.within(model, rtl))
    note({clk.edge(std::min(rtl, model)), where, "run", "total cycles", std::to_string(model), std::to_string(rtl)});
}

void TimingCorrelator::compare_memory(const MemoryLog& rtl, const MemoryLog& model,
                                      const ClockDomain& clk, TrafficScope scope) {
  if (same_traffic(rtl, model)) return;
  // Channels (source, read/write) -> each side's entries in acceptance order; std::map keeps the
  // report order stable: by source, reads before writes. A log is mostly one source's (a tile's
  // monitor), so the source's channels are looked up only when it changes.
  using Entries = std::vector<const MemoryLogEntry*>;
  struct Sides {
    Entries rtl, model;
  };
  std::map<std::uint32_t, std::array<Sides, 2>> channels;  // [write]
  const auto group = [&channels](const MemoryLog& log, Entries Sides::* side) {
    std::array<Sides, 2>* of_source = nullptr;
    std::uint32_t source = 0;
    for (const MemoryLogEntry& e : log) {
      if (!of_source || e.source != source) {
        source = e.source;
        of_source = &channels[source];
      }
      ((*of_source)[e.write].*side).push_back(&e);
    }
  };
  group(rtl, &Sides::rtl);
  group(model, &Sides::model);
  for (const auto& [source, of_source] : channels) {
    for (const bool write : {false, true}) {
      const Entries& r = of_source[write].rtl;
      const Entries& m = of_source[write].model;
      if (!r.empty() || !m.empty()) compare_channel(r, m, source, write, clk, scope);
    }
  }
}

bool TimingCorrelator::same_traffic(const MemoryLog& rtl, const MemoryLog& model) {
  // The usual outcome: both logs hold the same requests, issued at the same times, in the same
  // order. Then every channel's two sides are equal too, and all compare_channel would find is
  // each channel's request count; one walk over both logs gives those, without grouping.
  if (rtl.size() != model.size()) return false;
  std::map<std::uint32_t, std::array<std::uint64_t, 2>> counts;  // [write]; the report order of compare_memory
  std::array<std::uint64_t, 2>* of_source = nullptr;
  std::uint32_t source = 0;
  for (auto r = rtl.begin(), m = model.begin(); r != rtl.end(); ++r, ++m) {
    if (r->source != m->source || r->write != m->write || r->issue != m->issue || r->addr != m->addr ||
        r->bytes != m->bytes || r->byte_mask != m->byte_mask)
      return false;
    if (!of_source || r->source != source) {
      source = r->source;
      of_source = &counts[source];
    }
    ++(*of_source)[r->write];
  }
  for (const auto& [src, n] : counts)
    for (const bool write : {false, true})
      if (n[write] != 0) m_channels.push_back({src, write, n[write], n[write], 0});
  return true;
}

void TimingCorrelator::compare_channel(const std::vector<const MemoryLogEntry*>& r,
                                       const std::vector<const MemoryLogEntry*>& m, std::uint32_t source, bool write,
                                       const ClockDomain& clk, TrafficScope scope) {
  MemoryChannelTiming t{source, write, r.size(), m.size(), 0};
  const std::string where = channel_name(source, write);
  if (scope == TrafficScope::kAll && r.size() != m.size()) {
    const Time at = r.empty() ? m.back()->accept : r.back()->accept;
    note({at, where, "all requests", "request count", std::to_string(m.size()), std::to_string(r.size())});
  }
  for (std::size_t i = 0; i < std::min(r.size(), m.size()); ++i) {
    // Every request passes here: equal issue times are equal cycles, no error, within any
    // tolerance, so the divisions that turn times into cycles (and the name, built only for a
    // mismatch) are left to the requests that differ.
    const bool same_time = r[i]->issue == m[i]->issue;
    if (same_time && r[i]->addr == m[i]->addr && r[i]->bytes == m[i]->bytes && r[i]->byte_mask == m[i]->byte_mask)
      continue;
    const std::uint64_t rc = clk.cycle_at_or_after(r[i]->issue);
    const std::uint64_t mc = same_time ? rc : clk.cycle_at_or_after(m[i]->issue);
    t.max_abs_issue_error = std::max(t.max_abs_issue_error, rc > mc ? rc - mc : mc - rc);
    const auto id = [&] { return "request " + std::to_string(i) + " (id " + std::to_string(r[i]->id) + ")"; };
    if (r[i]->addr != m[i]->addr) note({clk.edge(rc), where, id(), "address", hex(m[i]->addr), hex(r[i]->addr)});
    // A burst of another length at the same address and cycle (an AxLEN off by one) moves other data.
    if (r[i]->bytes != m[i]->bytes)
      note({clk.edge(rc), where, id(), "bytes", std::to_string(m[i]->bytes), std::to_string(r[i]->bytes)});
    // Which bytes a write enables (WSTRB): the data check reads only the bytes the reference
    // writes, so bytes written that should have been left alone would otherwise pass.
    if (r[i]->byte_mask != m[i]->byte_mask)
      note({clk.edge(rc), where, id(), "byte mask", describe_byte_mask(m[i]->byte_mask, m[i]->bytes),
            describe_byte_mask(r[i]->byte_mask, r[i]->bytes)});
    if (!m_mem_tol.within(mc, rc))
      note({clk.edge(rc), where, id(), "issue cycle", std::to_string(mc), std::to_string(rc)});
  }
  m_channels.push_back(t);
}

void TimingCorrelator::compare_ici(const std::vector<IciSendEntry>& rtl, const std::vector<IciSendEntry>& model,
                                   const ClockDomain& clk, const std::string& where, TrafficScope scope) {
  if (scope == TrafficScope::kAll && rtl.size() != model.size()) {
    const Time at = rtl.empty() ? (model.empty() ? 0 : model.back().time) : rtl.back().time;
    note({at, where, "all rows", "row count", std::to_string(model.size()), std::to_string(rtl.size())});
  }
  const auto row_name = [](const IciSendEntry& e) {
    return std::string(e.to_acc ? "acc " : "sp ") + std::to_string(e.row) + (e.last ? " last" : "");
  };
  for (std::size_t i = 0; i < std::min(rtl.size(), model.size()); ++i) {
    const IciSendEntry& r = rtl[i];
    const IciSendEntry& m = model[i];
    const std::uint64_t rc = clk.cycle_at_or_after(r.time);
    const std::uint64_t mc = clk.cycle_at_or_after(m.time);
    const auto id = [&] { return "row " + std::to_string(i); };
    if (r.dst != m.dst) note({r.time, where, id(), "destination chip", std::to_string(m.dst), std::to_string(r.dst)});
    if (r.row != m.row || r.to_acc != m.to_acc || r.last != m.last)
      note({r.time, where, id(), "destination row", row_name(m), row_name(r)});
    if (r.bytes != m.bytes) note({r.time, where, id(), "bytes", std::to_string(m.bytes), std::to_string(r.bytes)});
    if (!m_mem_tol.within(mc, rc)) note({r.time, where, id(), "send cycle", std::to_string(mc), std::to_string(rc)});
  }
}

std::map<std::int64_t, std::uint64_t> TimingCorrelator::duration_error_histogram() const {
  std::map<std::int64_t, std::uint64_t> h;
  for (const InstrTiming& t : m_instrs) ++h[t.duration_error()];
  return h;
}

double TimingCorrelator::relative_error() const {
  if (s_model_cycles == 0) return 0.0;
  return (static_cast<double>(s_rtl_cycles) - static_cast<double>(s_model_cycles)) / static_cast<double>(s_model_cycles);
}

double TimingCorrelator::mean_abs_duration_error() const {
  if (m_instrs.empty()) return 0.0;
  double sum = 0;
  for (const InstrTiming& t : m_instrs) sum += static_cast<double>(std::llabs(t.duration_error()));
  return sum / static_cast<double>(m_instrs.size());
}

}  // namespace mxc
