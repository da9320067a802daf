#pragma once
// The Tile seam: something that executes a tile program against a
// MemoryTarget, one tile-clock cycle per advance. Implementations: RtlTile
// (bridge/, the verilated RTL) and ModelTile (models/mxu, the performance
// model). A chip is built from either with no special case.
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "models/core/clock_domain.h"
#include "models/core/component.h"
#include "models/mxu/ici_row.h"
#include "models/mxu/instr.h"

namespace mxc {

/// Names of a tile's performance counters, in hardware order (rtl/mxu_tile.sv).
const std::vector<std::string>& perf_counter_names();

class Tile : public Component {
 public:
  /// Start executing `program` at the next clock edge.
  virtual void load_program(Program program) = 0;
  /// True once every instruction has completed and its writes are acknowledged.
  virtual bool finished() const = 0;
  /// Tile-clock cycles from the first edge to completion (or so far).
  virtual std::uint64_t cycles() const = 0;
  /// Instructions completed so far.
  virtual std::size_t completed_instructions() const = 0;
  /// Per-instruction start and end cycles, in program order.
  virtual const std::vector<InstrEvent>& instr_events() const = 0;
  virtual const ClockDomain& clock() const = 0;
  /// One line on what the tile is doing, for watchdog and hang reports.
  virtual std::string state() const = 0;

  /// Rows the outbound ICI port emitted, oldest first; the chip takes them
  /// (to the Fabric, or back to push_inbound for rows to itself). The same
  /// queue for the tile's lifetime (callers may keep the reference).
  virtual std::deque<IciRow>& outbound() = 0;
  /// Queues an inbound ICI row for the tile's inbound port.
  virtual void push_inbound(IciRow row) = 0;
  /// The same, for a row that arrived at `now` (a tile that skips idle
  /// cycles needs the time to stay exact); by default the time is not needed.
  virtual void push_inbound_at(IciRow row, Time now) {
    (void)now;
    push_inbound(std::move(row));
  }
  /// Performance counters, named as perf_counter_names() (docs/isa.md).
  virtual std::vector<std::pair<std::string, std::uint64_t>> perf_counters() const = 0;
};

}  // namespace mxc
