#pragma once
// When each instruction of a program dispatched and completed, from a tile's
// per-edge dispatch and done signals: the one bookkeeping both tiles share
// (the RTL's monitors follow its event pins, ModelTile its own dispatcher),
// so their events cannot drift apart in how they count.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "models/mxu/instr.h"

namespace mxc {

/// An edge no instruction of the program explains: a unit done with nothing
/// pending, or a dispatch past the program's end. The text is the record the
/// RTL's monitors report (docs/checkers.md "Instruction monitors").
struct InstrEventFault {
  std::string pin;  ///< The unit's name ("dma", "compute", "ici"), or "dispatch".
  std::string field, expected, actual;
  /// "TILE: cycle N: FIELD (expected ..., got ...)", the message of tile `tile`'s fault at `cycle`.
  std::string text(const std::string& tile, std::uint64_t cycle) const {
    return tile + ": cycle " + std::to_string(cycle) + ": " + field + " (expected " + expected + ", got " + actual +
           ")";
  }
};

/// Dispatches come in program order; each unit (0 dma, 1 compute, 2 ici)
/// completes its instructions in the order they were dispatched to it; unit
/// 3 or above (no unit: FENCE, NOP) is done at dispatch.
class InstrEventTracker {
 public:
  static constexpr unsigned kUnits = 3;
  static const char* unit_name(unsigned unit);

  /// Starts a program of `instructions` instructions: none dispatched yet.
  void load(std::size_t instructions);
  /// One edge: bit u of `done` = unit u completed its oldest instruction;
  /// `dispatch` = the next instruction went to `unit`. Completions are taken
  /// before the dispatch of the same edge. An edge no instruction explains
  /// returns its fault, having recorded what came before it on that edge;
  /// the caller decides what a fault is (the RTL's: the design's; the
  /// model's: its own bug).
  [[nodiscard]] std::optional<InstrEventFault> on_edge(unsigned done, bool dispatch, unsigned unit,
                                                       std::uint64_t cycle) {
    // Inline: the model calls this on every edge that completes or dispatches.
    for (unsigned u = 0; u < kUnits; ++u) {
      if (((done >> u) & 1) == 0) continue;
      std::deque<std::size_t>& q = m_pending[u];
      if (q.empty()) return done_with_nothing_pending(u);
      m_events[q.front()].end = cycle;
      m_events[q.front()].done = true;
      q.pop_front();
      ++m_completed;
    }
    if (!dispatch) return std::nullopt;
    if (m_dispatched >= m_events.size()) return dispatch_beyond_program(unit);
    const std::size_t i = m_dispatched++;
    m_events[i].start = cycle;
    m_events[i].dispatched = true;
    if (unit >= kUnits) {
      m_events[i].end = cycle;
      m_events[i].done = true;
      ++m_completed;
    } else {
      m_pending[unit].push_back(i);
    }
    return std::nullopt;
  }

  std::size_t dispatched() const { return m_dispatched; }
  std::size_t completed() const { return m_completed; }
  const std::vector<InstrEvent>& events() const { return m_events; }
  /// Instructions dispatched to `unit` and not completed, oldest first.
  const std::deque<std::size_t>& pending(unsigned unit) const { return m_pending[unit]; }
  /// Where `program` stands, for a hang's report: "D dispatched, C completed", each busy unit's
  /// oldest instruction and the next to dispatch.
  std::string progress(const std::vector<Instr>& program) const;

 private:
  // Out of line: a fault ends the run, its text is never on the per-edge path.
  InstrEventFault done_with_nothing_pending(unsigned unit) const;
  InstrEventFault dispatch_beyond_program(unsigned unit) const;

  std::vector<InstrEvent> m_events;
  std::deque<std::size_t> m_pending[kUnits];
  std::size_t m_dispatched = 0, m_completed = 0;
};

}  // namespace mxc
