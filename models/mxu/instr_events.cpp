#include "models/mxu/instr_events.h"

#include <sstream>

namespace mxc {

const char* InstrEventTracker::unit_name(unsigned unit) {
  static const char* const kNames[] = {"dma", "compute", "ici"};
  return unit < kUnits ? kNames[unit] : "none";
}

void InstrEventTracker::load(std::size_t instructions) {
  m_events.assign(instructions, InstrEvent{0, 0, 0, false, false});
  for (std::size_t i = 0; i < m_events.size(); ++i) m_events[i].index = i;
  for (auto& q : m_pending) q.clear();
  m_dispatched = 0;
  m_completed = 0;
}

std::string InstrEventTracker::progress(const std::vector<Instr>& program) const {
  std::ostringstream s;
  s << m_dispatched << " dispatched, " << m_completed << " completed";
  for (unsigned u = 0; u < kUnits; ++u)
    if (!m_pending[u].empty()) {
      const std::size_t i = m_pending[u].front();
      s << "; " << unit_name(u) << " busy with #" << i << " (" << describe(program[i]) << ")";
    }
  if (m_dispatched < program.size())
    s << "; next to dispatch #" << m_dispatched << " (" << describe(program[m_dispatched]) << ")";
  return s.str();
}

InstrEventFault InstrEventTracker::done_with_nothing_pending(unsigned u) const {
  const std::string pin = "ev_done[" + std::to_string(u) + "]";
  return {unit_name(u), "done with nothing pending",
          pin + " low: no instruction pending on " + unit_name(u) + " (" + std::to_string(m_completed) + " of " +
              std::to_string(m_events.size()) + " completed)",
          pin + " high"};
}

InstrEventFault InstrEventTracker::dispatch_beyond_program(unsigned unit) const {
  return {"dispatch", "dispatch beyond the program",
          "no dispatch after the program's " + std::to_string(m_events.size()) + " instructions",
          "dispatch " + std::to_string(m_dispatched + 1) + " (ev_unit " + std::to_string(unit) + ")"};
}

}  // namespace mxc
