#include "cosim/timeline.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <queue>
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

/// The sort index of track `tid` (a viewer lists a process's tracks by it): room after each
/// id for the overflow lanes of the track whose last own lane it is.
std::int64_t sort_index(int tid) { return tid * kTraceSortStride; }

/// Track ids handed out to lanes past a kind's own range, in order of use.
class OverflowTids {
 public:
  OverflowTids(int first, int end) : m_next(first), m_end(end) {}
  int take(const std::string& trace_path) {
    // Each range holds 300 million lanes: a trace that many slices deep would not fit in memory.
    if (m_next == m_end)
      throw std::runtime_error("trace file '" + trace_path + "': out of track ids for overlapping slices");
    return m_next++;
  }

 private:
  int m_next, m_end;
};

/// Lanes of one kind of track: each slice goes to the lowest lane whose last
/// slice ended at or before it starts; new lanes are named on first use.
/// Slices come in start order, so a lane free at one slice's start stays free
/// until taken: the free lanes and the busy ones (by end) are two heaps, and
/// a slice costs a logarithm of the lanes, however many overlap. Lane k below
/// `own_lanes` is track base + k; later lanes (a fabric's queue may hold
/// thousands of packets of one route in flight) take ids from `overflow`,
/// sorted after the kind's own lanes.
class Lanes {
 public:
  Lanes(TraceWriter& out, int pid, int base_tid, std::string name, int own_lanes, OverflowTids& overflow)
      : m_out(out), m_overflow(overflow), m_pid(pid), m_base(base_tid), m_own(own_lanes), m_name(std::move(name)) {}

  int place(Time start, Time end) {
    while (!m_busy.empty() && m_busy.top().first <= start) {
      m_free.push(m_busy.top().second);
      m_busy.pop();
    }
    std::size_t lane = 0;
    if (m_free.empty()) {
      lane = add_lane();
    } else {
      lane = m_free.top();
      m_free.pop();
    }
    m_busy.emplace(end, lane);
    return m_tids[lane];
  }
  /// The first lane, named even when no slice is placed.
  int first() {
    if (m_tids.empty()) m_free.push(add_lane());
    return m_base;
  }

 private:
  std::size_t add_lane() {
    const std::size_t lane = m_tids.size();
    const bool own = lane < static_cast<std::size_t>(m_own);
    const int tid = own ? m_base + static_cast<int>(lane) : m_overflow.take(m_out.path());
    m_tids.push_back(tid);
    const std::string name = lane == 0 ? m_name : m_name + " #" + std::to_string(lane + 1);
    // An overflow lane sorts after the lanes before it, all within its track's last own id's
    // stride: a viewer lists them in order, before the next track.
    const auto past = static_cast<std::int64_t>(lane) - m_own + 1;  // overflow lanes so far, this one included
    m_out.thread(m_pid, tid, name, own ? sort_index(tid) : sort_index(m_base + m_own - 1) + past);
    return lane;
  }

  template <typename T>
  using MinHeap = std::priority_queue<T, std::vector<T>, std::greater<T>>;

  TraceWriter& m_out;
  OverflowTids& m_overflow;
  int m_pid, m_base, m_own;
  std::string m_name;
  std::vector<int> m_tids;                          // per lane
  MinHeap<std::size_t> m_free;                      // lanes free at the last slice's start
  MinHeap<std::pair<Time, std::size_t>> m_busy;     // (end, lane) of the others
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
  out.thread(pid, kTraceTidDispatch, "dispatch", sort_index(kTraceTidDispatch));
  OverflowTids overflow(kTraceTidInstrOverflow, kTraceTidMemoryOverflow);
  Lanes units[3] = {{out, pid, kTraceTidDma, "dma", kTraceUnitLanes, overflow},
                    {out, pid, kTraceTidCompute, "compute", kTraceUnitLanes, overflow},
                    {out, pid, kTraceTidIci, "ici", kTraceUnitLanes, overflow}};
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
  OverflowTids overflow(kTraceTidMemoryOverflow, kTraceTidIciOverflow);
  for (const auto& [key, members] : channels) {
    Lanes lanes(out, pid, kTraceTidChannelBase + kTraceLanesPerTrack * channel++,
                "source " + std::to_string(key.first) + (key.second ? " write" : " read"), kTraceLanesPerTrack,
                overflow);
    const char* name = key.second ? "write" : "read";
    // In the order of the slices' starts, which the lanes need.
    const auto order = by_start(members.size(), [&](std::size_t i) {
      const MemoryLogEntry& e = log[members[i]];
      return std::min(e.issue, e.accept);
    });
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
  OverflowTids overflow(kTraceTidIciOverflow, kTraceTidOverflowEnd);
  for (const auto& [key, members] : routes) {
    Lanes lanes(out, pid, kTraceTidRouteBase + kTraceLanesPerTrack * route++,
                "chip " + std::to_string(key.first) + " -> chip " + std::to_string(key.second), kTraceLanesPerTrack,
                overflow);
    const auto order = by_start(members.size(), [&](std::size_t i) { return delivered[members[i]].inject; });
    for (std::size_t k : order) {
      const IciPacket& p = delivered[members[k]];
      // A row a chip sends itself never enters the fabric: its number among those rows is no
      // fabric packet id (the two series both start at 0), and is shown as such.
      const nlohmann::json args = {{p.src == p.dst ? "row" : "id", p.id}, {"bytes", p.bytes}, {"vc", p.vc},
                                   {"addr", hex(p.addr)}, {"last", p.last}};
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
    out.thread(pid, tid(pc, false), "pc " + std::to_string(pc) + " row", sort_index(tid(pc, false)));
    out.thread(pid, tid(pc, true), "pc " + std::to_string(pc) + " column", sort_index(tid(pc, true)));
  }
  for (const HbmCommandRecord& c : commands) {
    const nlohmann::json args = {{"bank", c.cmd.bank}, {"row", c.cmd.row}, {"col", c.cmd.col}, {"cycle", c.cmd.cycle}};
    out.complete(pid, tid(c.pc, hbm::is_column(c.cmd.cmd)), hbm::cmd_name(c.cmd.cmd), "hbm", clk.edge(c.cmd.cycle),
                 clk.period(), args);
  }
}

}  // namespace mxc
