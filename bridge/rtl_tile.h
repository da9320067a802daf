#pragma once
// RtlTile: the verilated MXU tile (rtl/mxu_tile.sv) behind the Tile seam.
// Its transactors turn the tile's pins into transactions: a command driver
// feeds the program into the command port, an AXI4 slave transactor connects
// the DMA port to a MemoryTarget, and the ICI streams become IciRows queued
// for the chip to carry over a Fabric. Monitors record when each
// instruction dispatched and completed.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bridge/axi4_slave_transactor.h"
#include "bridge/handshake_checker.h"
#include "models/core/memory_target.h"
#include "models/mxu/ici_row.h"
#include "models/mxu/instr_events.h"
#include "models/mxu/tile.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

struct RtlTileConfig {
  std::string name = "tile0";
  std::uint32_t rows = 4, cols = 4;
  std::uint32_t chip = 0;               ///< This tile's chip index (IciRow::src).
  double clock_mhz = 1000.0;
  std::uint64_t seed = 1;               ///< Seeds Verilator's initial state and the transactors.
  std::uint32_t source_id = 0;          ///< MemRequest::source of this tile's traffic.
  std::string waveform;                 ///< FST path; empty = no waveform.
  std::uint64_t waveform_from_cycle = 0;     ///< Dump only cycles in [from, to] of the program.
  std::uint64_t waveform_to_cycle = ~0ull;
  Axi4Backpressure axi_backpressure;    ///< Random backpressure on the AXI port (default none).
  double cmd_gap = 0.0;                 ///< Probability of not offering a command in a cycle.
  double ici_out_stall = 0.0;           ///< Probability of refusing an outbound row in a cycle.
  std::uint32_t ici_out_queue = 4;      ///< Outbound rows buffered before the port refuses (credits).
  std::string mutant;                   ///< Empty: the tile as designed; else a mutant (docs/mutants.md).
};

/// The monitors on the tile's instruction event pins (ev_dispatch with
/// ev_unit, and ev_done, one bit per unit), sampled before each edge: when
/// each instruction of the program dispatched and completed, kept by the
/// InstrEventTracker ModelTile uses too (models/mxu/instr_events.h).
/// Pins no instruction of the program explains (a unit done with nothing
/// pending, a dispatch past the program's end) are the design's fault, not
/// the run's: on_edge throws RtlPinError (bridge/axi4_protocol_error.h) and
/// the run fails with that record (where = "monitor <tile>.<unit>").
class InstrMonitor {
 public:
  static constexpr unsigned kUnits = InstrEventTracker::kUnits;  ///< ev_done bits: dma, compute, ici.
  static const char* unit_name(unsigned unit) { return InstrEventTracker::unit_name(unit); }

  explicit InstrMonitor(std::string tile = "tile") : m_tile(std::move(tile)) {}
  /// Starts a program of `instructions` instructions: none dispatched yet.
  void load(std::size_t instructions) { m_tracker.load(instructions); }
  /// One edge's event pins: bit u of `done` = unit u completed its oldest
  /// instruction; `dispatch` = the next instruction went to `unit`.
  /// Completions are taken before the dispatch of the same edge.
  void on_edge(unsigned done, bool dispatch, unsigned unit, std::uint64_t cycle, Time now) {
    if (auto fault = m_tracker.on_edge(done, dispatch, unit, cycle)) fail(*fault, cycle, now);
  }

  std::size_t dispatched() const { return m_tracker.dispatched(); }
  std::size_t completed() const { return m_tracker.completed(); }
  const std::vector<InstrEvent>& events() const { return m_tracker.events(); }
  /// Instructions dispatched to `unit` and not completed, oldest first.
  const std::deque<std::size_t>& pending(unsigned unit) const { return m_tracker.pending(unit); }
  /// InstrEventTracker::progress.
  std::string progress(const std::vector<Instr>& program) const { return m_tracker.progress(program); }

 private:
  [[noreturn]] void fail(const InstrEventFault& fault, std::uint64_t cycle, Time now) const;

  std::string m_tile;
  InstrEventTracker m_tracker;
};

class RtlTile : public Tile {
 public:
  /// The tile's sticky error output (unknown opcode, AXI error response).
  virtual bool hardware_error() const = 0;
  virtual const TileGeometry& geometry() const = 0;
  virtual const Axi4SlaveTransactor& axi() const = 0;
  /// The valid/ready rules on every channel of the tile: command, the five
  /// AXI channels, ICI outbound and inbound.
  virtual const HandshakeChecker& handshake() const = 0;
};

/// (rows, cols) of every verilated tile size in this build, ascending.
std::vector<std::pair<std::uint32_t, std::uint32_t>> rtl_tile_sizes();
/// The geometry of the verilated tile of that size (throws like make_rtl_tile).
TileGeometry rtl_tile_geometry(std::uint32_t rows, std::uint32_t cols);
/// The same geometry for a size with no RTL (a system of model tiles
/// only): the RTL's scratchpad, accumulators and AXI beat.
TileGeometry rtl_like_geometry(std::uint32_t rows, std::uint32_t cols);

/// Throws std::invalid_argument naming the available sizes when cfg.rows x
/// cfg.cols was not verilated (configure with -DMXCOSIM_RTL_SIZES), or the
/// built mutants when cfg.mutant is not one of them.
std::unique_ptr<RtlTile> make_rtl_tile(const RtlTileConfig& cfg, MemoryTarget& mem);

/// Makes one verilated mutant tile (see bridge/verilated_tile.h).
using RtlMutantMaker =
    std::function<std::unique_ptr<RtlTile>(const RtlTileConfig&, const TileGeometry&, MemoryTarget&)>;
/// Adds a mutant verilated outside mxcosim_rtl (tests build their own).
void register_rtl_mutant(const std::string& name, std::uint32_t rows, std::uint32_t cols, RtlMutantMaker make);
/// "name (RxC)" of every mutant this build holds, sorted.
std::vector<std::string> rtl_tile_mutants();
/// Throws std::invalid_argument, naming the mutants built and how to build
/// it, unless this build holds mutant `name` of a rows x cols array.
void check_rtl_mutant(const std::string& name, std::uint32_t rows, std::uint32_t cols);

}  // namespace mxc
