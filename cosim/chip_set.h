#pragma once
// ChipSet: one instance of the configured system (cosim/system_config.h):
// per chip a memory (ideal or HBM) shared by its tiles, the tiles (RTL or
// performance model), and one fabric joining the chips. Tile t of one chip
// talks over the ICI to tile t of another. A co-simulation builds two: the
// design under test, and an all-model shadow for timing correlation.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bridge/memory_monitor.h"
#include "bridge/timing_correlator.h"
#include "cosim/kernel.h"
#include "cosim/memory_replay.h"
#include "cosim/timeline.h"
#include "cosim/system_config.h"
#include "models/core/fabric.h"
#include "models/core/memory_target.h"
#include "models/core/shared_memory.h"
#include "models/core/sparse_memory.h"
#include "models/mxu/tile.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

namespace transport {
class RemoteMemoryTarget;
struct FinishMsg;
}
namespace hbm {
class HbmModel;
struct MemoryConfig;
}

/// Makes chip `chip`'s memory or the fabric in place of the configured local
/// ones (for example proxies of models served by another process).
using MemoryMaker = std::function<std::unique_ptr<MemoryTarget>(std::uint32_t chip, const std::string& name)>;
using FabricMaker = std::function<std::unique_ptr<Fabric>()>;

struct ChipSetOptions {
  std::string prefix = "dut";          ///< Component name prefix.
  bool all_model = false;              ///< Every tile is the performance model (the shadow).
  /// The HBM timing checker where the system's checks ask for it. The shadow leaves it off:
  /// its memory is another instance of the model the design's memory already checks.
  bool check_memory_timing = true;
  /// Log every call to each local configured memory and its answer (cosim/memory_replay.h),
  /// for a shadow to replay.
  bool record_memory_calls = false;
  /// Per chip, a log of the design's memory to answer from while the calls agree (the shadow);
  /// empty or null = simulate the memory.
  std::vector<const MemoryCallLog*> replay_memory;
  /// Per chip and tile, the design's request log (memory_log) for the chips in replay_memory.
  /// A tile's monitor then logs nothing while its memory answers from the log: if the
  /// memory replays every call the design's made, the design's log is the tile's (the same
  /// calls with the same answers), else the monitor catches up from the call log.
  std::vector<std::vector<const MemoryLog*>> replay_request_logs;
  /// The system's HBM preset (SystemConfig::hbm_config) already loaded, shared by the
  /// design's and the shadow's chip sets; null: the chip set loads it.
  const hbm::MemoryConfig* hbm_preset = nullptr;
  std::uint64_t seed = 1;
  std::string waveform;                ///< FST of RTL tile 0 of chip 0; empty = none.
  std::uint64_t waveform_from_cycle = 0;
  std::uint64_t waveform_to_cycle = ~0ull;
  MemoryMaker make_memory;             ///< Empty: the configured ideal or HBM memory.
  bool record_hbm_commands = false;    ///< Keep every DRAM command (for the timeline).
  FabricMaker make_fabric;             ///< Empty: the configured fabric (chips > 1).
  std::string mutant;                  ///< Every RTL tile is this mutant (docs/mutants.md); empty = none.
  /// Split run (docs/transport.md): only these chips are built here, the others run in other
  /// processes; make_fabric then gives the link to them. Empty = every chip.
  std::vector<std::uint32_t> chips;
};

class ChipSet {
 public:
  ChipSet(const SystemConfig& cfg, const TileGeometry& geometry, const ChipSetOptions& opts);
  ~ChipSet();

  /// Registers every component with the kernel (tiles first, then memories, then the fabric),
  /// each under its id in the whole system's kernel, counted from `base`.
  void add_to(Kernel& kernel, Kernel::ComponentId base = 0);
  /// Components of the whole system (all chips), so the next set registered counts on from here.
  Kernel::ComponentId components() const;
  /// Loads chip c's initial memory image.
  void load_image(std::uint32_t chip, const SparseMemory& image);
  void load_program(std::uint32_t chip, std::uint32_t tile, Program program);

  /// Moves ICI rows between tiles and the fabric; call after every kernel step. Inline: most
  /// steps move nothing, and the call runs after every step of the design and of the shadow.
  void pump(Time now) {
    for (const auto* q : m_all_outbound)
      if (!q->empty()) return move_rows(now);
    // Packets the fabric refused are offered again with new rows (above) or after the
    // fabric's own step, not after every step: a split run's server sees only those two
    // (docs/transport.md), and offering at other steps could take a packet earlier in a
    // time's order than the server does.
    if (m_fabric_step.steps() == m_offered_at_step) return;
    for (const auto* q : m_all_pending)
      if (!q->empty()) return move_rows(now);
  }
  /// Every tile finished, no row waiting and the fabric idle; in a split run, the chips built here.
  bool finished() const;
  /// The earliest next event of the tiles and memories built here (a split run's WINDOW.next).
  Time next_event_time() const;
  /// Whether chip c is built here.
  bool local(std::uint32_t chip) const { return m_local.at(chip); }
  /// Instructions completed over all tiles.
  std::size_t completed_instructions() const;
  /// Work done so far, for the hang watchdog: instructions completed, memory requests
  /// answered and ICI bytes delivered, the last two counted up to what the loaded programs
  /// move (ProgramTraffic): a long transfer is progress, one that never ends is not.
  std::uint64_t progress() const;
  /// The longest a tile has run, in tile cycles.
  std::uint64_t max_tile_cycles() const;
  /// Ends the run (HBM refresh bookkeeping and end-of-run timing checks).
  void finish(Time now);

  std::uint32_t chips() const { return m_cfg.chips; }
  std::uint32_t tiles_per_chip() const { return m_cfg.tiles_per_chip; }
  Tile& tile(std::uint32_t chip, std::uint32_t t) { return *m_chips.at(chip).tiles.at(t); }
  const Tile& tile(std::uint32_t chip, std::uint32_t t) const { return *m_chips.at(chip).tiles.at(t); }
  TileKind kind(std::uint32_t t) const { return m_opts.all_model ? TileKind::kModel : m_cfg.tile_kinds.at(t); }
  MemoryTarget& memory(std::uint32_t chip) { return *m_chips.at(chip).memory; }
  /// Chip c's memory calls (record_memory_calls), or null.
  const MemoryCallLog* memory_calls(std::uint32_t chip) const;
  /// Whether chip c's memory answered everything from the design's log (replay_memory).
  bool memory_replayed(std::uint32_t chip) const;
  /// Every request tile t of chip c made, with its times (after finish()).
  const MemoryLog& memory_log(std::uint32_t chip, std::uint32_t t) const {
    const Chip& c = m_chips.at(chip);
    return c.stand_in_logs.empty() ? c.monitors.at(t)->log() : *c.stand_in_logs.at(t);
  }
  /// DRAM commands chip c's HBM issued (record_hbm_commands), and its command clock.
  const std::vector<HbmCommandRecord>& hbm_commands(std::uint32_t chip) const { return m_chips.at(chip).commands; }
  const ClockDomain* hbm_clock(std::uint32_t chip) const;
  /// Whether chip c's HBM runs its JEDEC timing checker (false without HBM).
  bool hbm_timing_checked(std::uint32_t chip) const;
  /// Violations the HBM timing checker of chip c found (none without HBM or checker).
  std::vector<std::string> hbm_violations(std::uint32_t chip) const;
  /// Requests to chip c's HBM that reached past its capacity and aliased
  /// lower addresses (0 without HBM).
  std::uint64_t hbm_requests_beyond_capacity(std::uint32_t chip) const;
  /// Every ICI row tile t of chip c sent, in send order.
  const std::vector<IciSendEntry>& ici_sends(std::uint32_t chip, std::uint32_t t) const {
    return m_chips.at(chip).ici_sends.at(t);
  }
  /// ICI packets the fabric delivered, in delivery order.
  const std::vector<IciPacket>& ici_delivered() const { return m_delivered; }
  /// Bytes read and written at chip c's memory, and ICI payload bytes delivered.
  std::uint64_t bytes_read(std::uint32_t chip) const { return m_chips.at(chip).ports->bytes_read(); }
  std::uint64_t bytes_written(std::uint32_t chip) const { return m_chips.at(chip).ports->bytes_written(); }
  std::uint64_t ici_bytes() const { return m_ici_bytes; }
  /// A one-line state of every unfinished tile, for hang reports.
  std::string state() const;

 private:
  // What chip c's served HBM model reported at finish(), or nullptr (its memory is here).
  const transport::FinishMsg* served_hbm_report(std::uint32_t chip) const;

  struct Chip {
    std::unique_ptr<MemoryTarget> memory;  // registered with the kernel: the memory or its recorder or replay
    hbm::HbmModel* hbm = nullptr;          // the HBM model inside, if any
    transport::RemoteMemoryTarget* remote = nullptr;  // a served memory (make_memory), if any
    RecordingMemory* recorder = nullptr;
    ReplayMemory* replay = nullptr;
    std::unique_ptr<SharedMemory> ports;
    std::vector<std::unique_ptr<MemoryMonitor>> monitors;  // one per tile, around its port
    std::vector<const MemoryLog*> stand_in_logs;  // the design's, standing for the monitors' (replay_request_logs)
    std::vector<std::unique_ptr<Tile>> tiles;
    std::vector<std::deque<IciRow>*> outbound;  // each tile's outbound(), looked at after every step
    std::deque<IciPacket> pending;     // rows waiting for the fabric to accept them
    std::vector<std::vector<IciSendEntry>> ici_sends;  // per tile
    std::vector<HbmCommandRecord> commands;
  };

  /// The fabric as the kernel runs it, counting its steps.
  class FabricStep : public Component {
   public:
    void attach(Fabric* fabric) { m_fabric = fabric; }
    std::string name() const override { return m_fabric->name(); }
    Time next_event_time() const override { return m_fabric->next_event_time(); }
    void advance_to(Time now) override {
      ++m_steps;
      m_fabric->advance_to(now);
    }
    std::uint64_t steps() const { return m_steps; }

   private:
    Fabric* m_fabric = nullptr;
    std::uint64_t m_steps = 0;
  };

  void move_rows(Time now);
  /// Brings chip c's paused monitors up to the first `calls` replayed calls and resumes them.
  void catch_up_monitors(std::uint32_t c, std::uint64_t calls);

  SystemConfig m_cfg;
  TileGeometry m_geo;
  ChipSetOptions m_opts;
  std::vector<Chip> m_chips;  // a chip not built here (split run) has no memory and no tiles
  // Every local tile's outbound queue and every local chip's pending packets, so that pump()
  // tells at a glance the usual step that moves nothing.
  std::vector<const std::deque<IciRow>*> m_all_outbound;
  std::vector<const std::deque<IciPacket>*> m_all_pending;
  std::vector<bool> m_local;
  bool m_split = false;
  std::unique_ptr<Fabric> m_fabric;
  FabricStep m_fabric_step;               // registered with the kernel in its place
  std::uint64_t m_offered_at_step = 0;    // m_fabric_step.steps() when the waiting packets were last offered
  std::uint64_t m_next_packet = 0;
  std::uint64_t m_ici_bytes = 0;
  ProgramTraffic m_traffic;  // of the programs loaded
  std::vector<IciPacket> m_delivered;
  std::uint64_t m_next_local = 0;  // ids of the rows chips send themselves (m_delivered)
};

}  // namespace mxc
