#include "cosim/timeline.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace mxc {

namespace {

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

/// Lanes of one kind of track: each slice goes to the lowest lane whose last
/// slice ended at or before it starts; new lanes are named on first use.
class Lanes {
 public:
  Lanes(TraceWriter& out, int pid, int base_tid, std::string name, int max_lanes = kTraceLanesPerTrack)
      : m_out(out), m_pid(pid), m_base(base_tid), m_max(max_lanes), m_name(std::move(name)) {}

  int place(Time start, Time end) {
    for (std::size_t i = 0; i < m_ends.size(); ++i)
      if (m_ends[i] <= start) {
        m_ends[i] = end;
        return m_base + static_cast<int>(i);
      }
    if (m_ends.size() >= static_cast<std::size_t>(m_max))
      throw std::runtime_error("trace file '" + m_out.path() + "': more than " + std::to_string(m_max) +
                               " overlapping slices on " + m_name);
    m_ends.push_back(end);
    const int tid = m_base + static_cast<int>(m_ends.size() - 1);
    m_out.thread(m_pid, tid, m_ends.size() == 1 ? m_name : m_name + " #" + std::to_string(m_ends.size()));
    return tid;
  }
  /// The first lane, named even when no slice is placed.
  int first() {
    if (m_ends.empty()) {
      m_ends.push_back(0);
      m_out.thread(m_pid, m_base, m_name);
    }
    return m_base;
  }

 private:
  TraceWriter& m_out;
  int m_pid, m_base, m_max;
  std::string m_name;
  std::vector<Time> m_ends;
};

/// Indices of [0, n) ordered by start time, ties by index (stable, so deterministic).
template <typename StartFn>
std::vector<std::size_t> by_start(std::size_t n, StartFn start) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return start(a) < start(b); });
  return order;
}

}  // namespace

void trace_instructions(TraceWriter& out, int pid, const Program& program, const std::vector<InstrEvent>& events,
                        const ClockDomain& clk) {
  out.thread(pid, kTraceTidDispatch, "dispatch");
  Lanes units[3] = {{out, pid, kTraceTidDma, "dma", kTraceUnitLanes},
                    {out, pid, kTraceTidCompute, "compute", kTraceUnitLanes},
                    {out, pid, kTraceTidIci, "ici", kTraceUnitLanes}};
  const auto order = by_start(events.size(), [&](std::size_t i) { return events[i].start; });
  for (std::size_t k : order) {
    const InstrEvent& e = events[k];
    if (e.index >= program.size())
      throw std::invalid_argument("trace_instructions: event for instruction " + std::to_string(e.index) +
                                  " of a " + std::to_string(program.size()) + "-instruction program");
    // A run stopped early: instructions never dispatched have no time to be drawn at (they
    // were slices at time 0), and one dispatched but unfinished is an instant at its dispatch.
    if (!e.dispatched) continue;
    const Instr& in = program[e.index];
    nlohmann::json args = {{"index", e.index}, {"instr", describe(in)}, {"start_cycle", e.start}};
    if (e.done) args["end_cycle"] = e.end;
    const std::string name(to_string(in.op));
    const Unit u = unit_of(in.op);
    const Time start = clk.edge(e.start);
    const Time end = clk.edge(std::max(e.start, e.end));
    if (!e.done) {
      const int tid = u == Unit::none ? kTraceTidDispatch : units[static_cast<int>(u) - 1].first();
      out.instant(pid, tid, name + " (unfinished)", "instr", start, args);
      continue;
    }
    if (u == Unit::none) {
      out.instant(pid, kTraceTidDispatch, name, "instr", start, args);
      continue;
    }
    Lanes& lanes = units[static_cast<int>(u) - 1];
    out.complete(pid, lanes.place(start, end), name, "instr", start, end - start, args);
  }
}

void trace_memory(TraceWriter& out, int pid, const MemoryLog& log) {
  // Channels in (source, read before write) order, so track ids do not depend on traffic order.
  std::map<std::pair<std::uint32_t, bool>, std::vector<std::size_t>> channels;
  for (std::size_t i = 0; i < log.size(); ++i) channels[{log[i].source, log[i].write}].push_back(i);
  int channel = 0;
  for (const auto& [key, members] : channels) {
    Lanes lanes(out, pid, kTraceTidChannelBase + kTraceLanesPerTrack * channel++,
                "source " + std::to_string(key.first) + (key.second ? " write" : " read"));
    const char* name = key.second ? "write" : "read";
    const auto order = by_start(members.size(), [&](std::size_t i) { return log[members[i]].issue; });
    for (std::size_t k : order) {
      const MemoryLogEntry& e = log[members[k]];
      nlohmann::json args = {{"id", e.id}, {"addr", hex(e.addr)}, {"bytes", e.bytes},
                             {"issue_ps", e.issue}, {"accept_ps", e.accept}};
      if (e.complete == kNever) {
        out.instant(pid, lanes.first(), std::string(name) + " (incomplete)", "mem", e.accept, args);
        continue;
      }
      args["complete_ps"] = e.complete;
      const Time start = std::min(e.issue, e.accept);
      const Time end = std::max(start, e.complete);
      out.complete(pid, lanes.place(start, end), name, "mem", start, end - start, args);
    }
  }
}

void trace_ici(TraceWriter& out, int pid, const std::vector<IciPacket>& delivered) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::size_t>> routes;
  for (std::size_t i = 0; i < delivered.size(); ++i) routes[{delivered[i].src, delivered[i].dst}].push_back(i);
  int route = 0;
  for (const auto& [key, members] : routes) {
    Lanes lanes(out, pid, kTraceTidRouteBase + kTraceLanesPerTrack * route++,
                "chip " + std::to_string(key.first) + " -> chip " + std::to_string(key.second));
    const auto order = by_start(members.size(), [&](std::size_t i) { return delivered[members[i]].inject; });
    for (std::size_t k : order) {
      const IciPacket& p = delivered[members[k]];
      const nlohmann::json args = {{"id", p.id}, {"bytes", p.bytes}, {"vc", p.vc}, {"addr", hex(p.addr)},
                                   {"last", p.last}};
      const Time end = std::max(p.inject, p.deliver);
      out.complete(pid, lanes.place(p.inject, end), "packet", "ici", p.inject, end - p.inject, args);
    }
  }
}

void trace_hbm_commands(TraceWriter& out, int pid, const std::vector<HbmCommandRecord>& commands,
                        const ClockDomain& clk) {
  // Two tracks per pseudo-channel, its row and its column command bus: a
  // row and a column command may issue in one cycle, and a slice of one
  // cycle per command never overlaps another on the same bus.
  const auto tid = [](std::uint32_t pc, bool column) {
    return kTraceTidPseudoChannelBase + 2 * static_cast<int>(pc) + (column ? 1 : 0);
  };
  std::set<std::uint32_t> pcs;  // tracks named in index order, whatever the command order
  for (const HbmCommandRecord& c : commands) pcs.insert(c.pc);
  for (std::uint32_t pc : pcs) {
    out.thread(pid, tid(pc, false), "pc " + std::to_string(pc) + " row");
    out.thread(pid, tid(pc, true), "pc " + std::to_string(pc) + " column");
  }
  for (const HbmCommandRecord& c : commands) {
    const nlohmann::json args = {{"bank", c.cmd.bank}, {"row", c.cmd.row}, {"col", c.cmd.col}, {"cycle", c.cmd.cycle}};
    out.complete(pid, tid(c.pc, hbm::is_column(c.cmd.cmd)), hbm::cmd_name(c.cmd.cmd), "hbm", clk.edge(c.cmd.cycle),
                 clk.period(), args);
  }
}

}  // namespace mxc
