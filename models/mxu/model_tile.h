#pragma once
// ModelTile: the cycle-accurate performance model of the MXU tile behind the
// Tile seam. It executes a program with the RTL's microarchitecture (command
// port, dispatcher and unit queues, DMA, compute unit and array pipeline, ICI
// unit) and the AXI slave transactor's timing, without data, so that it
// issues the same MemRequests at the same times and reports the same
// per-instruction events and performance counters as RtlTile on the same
// memory system. Cycles in which nothing can change while the tile waits on
// memory or on the array pipeline are skipped, and so are the cycles of R and
// W data streams, replayed in one step on waking (docs/model.md).
#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "models/core/memory_target.h"
#include "models/mxu/model_axi_port.h"
#include "models/mxu/model_compute.h"
#include "models/mxu/model_dma.h"
#include "models/mxu/instr_events.h"
#include "models/mxu/model_ici.h"
#include "models/mxu/tile.h"
#include "models/mxu/tile_geometry.h"
#include "models/mxu/unit_queues.h"

namespace mxc {

struct ModelTileConfig {
  std::string name = "tile0";
  TileGeometry geometry;
  std::uint32_t chip = 0;              ///< IciRow::src of emitted rows.
  double clock_mhz = 1000.0;
  std::uint32_t source_id = 0;         ///< MemRequest::source.
  std::uint32_t max_outstanding = 16;  ///< DMA bursts in flight (the RTL's MAX_OUTSTANDING).
  std::uint32_t ici_out_queue = 4;     ///< Outbound rows buffered before the port refuses (RtlTileConfig).
  /// The kernel runs the memory before the tile at equal times (registered
  /// first); default: the tile first, as cosim/program_run.cpp registers them.
  bool memory_first = false;
  /// Skip cycles in which nothing can change (same results; much faster).
  bool skip_idle = true;
};

class ModelTile final : public Tile {
 public:
  /// Installs itself as `mem`'s completion callback.
  ModelTile(const ModelTileConfig& cfg, MemoryTarget& mem);

  std::string name() const override { return m_cfg.name; }
  Time next_event_time() const override;
  void advance_to(Time now) override;

  void load_program(Program program) override;
  bool finished() const override { return m_finished; }
  /// Cycles evaluated or skipped so far; while the tile sleeps, up to its last evaluated cycle
  /// (it cannot tell the time): stop_at() counts those since.
  std::uint64_t cycles() const override { return m_cycle; }
  std::size_t completed_instructions() const override { return m_tracker.completed(); }
  const std::vector<InstrEvent>& instr_events() const override { return m_tracker.events(); }
  const ClockDomain& clock() const override { return m_clock; }
  std::string state() const override;
  std::deque<IciRow>& outbound() override { return m_out_queue; }
  void push_inbound(IciRow row) override { m_in_queue.push_back(std::move(row)); }
  /// Queues an inbound row delivered at kernel time `now` (by a component
  /// registered after the tile, such as a fabric): exact even while the tile
  /// skips idle cycles, where push_inbound cannot tell when the row came.
  void push_inbound_at(IciRow row, Time now) override;
  std::vector<std::pair<std::string, std::uint64_t>> perf_counters() const override;

  const TileGeometry& geometry() const { return m_cfg.geometry; }
  std::uint64_t bytes_read() const { return m_axi.bytes_read(); }
  /// Bytes of the write beats, whole beats as the memory receives them
  /// (WSTRB masks some bytes of a partial row's last beat): traffic, as
  /// bytes_read() counts it.
  std::uint64_t bytes_written() const { return m_axi.bytes_written(); }
  /// The run stopped with every kernel step before `now` taken (a hang, the end of a run the
  /// tile did not finish): the cycles it slept through since its last evaluated one count in
  /// cycles() and the counters as the cycle-by-cycle path (skip_idle false) would have them.
  /// Nothing for a finished tile or one awake.
  void stop_at(Time now);
  /// Cycles actually evaluated (the rest were skipped as idle).
  std::uint64_t evaluated_cycles() const { return s_evaluated; }

 private:
  static constexpr std::size_t kCounters = 12;
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  /// What an evaluated cycle changed.
  enum class Change : std::uint8_t {
    kSome,        ///< Something the next cycle depends on.
    kNone,        ///< Nothing (a fixed point).
    kReadStream,  ///< Only an R beat went through the DMA (ModelDma::read_beat_only).
    kWriteStream, ///< Only a W beat of a store went out (ModelDma::write_beat_only).
  };
  /// One clock cycle.
  Change step(Time now);
  std::uint64_t wake_cycle() const;
  /// Wakes from sleep at cycle `target` (not before the one it slept at): the skipped cycles'
  /// counters, data beats and compute steps replayed.
  void wake_to(std::uint64_t target);
  void flush_counters();

  ModelTileConfig m_cfg;
  ClockDomain m_clock;
  ModelAxiPort m_axi;
  ModelDma m_dma;
  ModelCompute m_compute;
  ModelIci m_ici;

  Program m_program;
  /// Per instruction, what the dispatcher checks: its unit (0 dma, 1 compute,
  /// 2 ici, 3 none) and its wait limits (FENCE: all 0).
  struct Dispatch {
    std::uint8_t unit = 3;
    std::uint8_t limit[3] = {0, 0, 0};
    bool fence = false;  // also waits for the array to drain
  };
  std::vector<Dispatch> m_dispatch;
  IciRow m_row;                      // scratch for the ICI unit's emitted row
  // Dispatcher: head register, per-unit outstanding counts and queues (program indices).
  bool m_head_valid = false;
  std::size_t m_head = 0, m_next_cmd = 0;
  std::uint32_t m_outstanding[3] = {0, 0, 0};
  /// A unit queue (at most kUnitQueueDepth entries, the RTL's FIFO depth) as a ring.
  struct UnitQueue {
    static_assert((kUnitQueueDepth & (kUnitQueueDepth - 1)) == 0, "the ring wraps with a mask");
    static constexpr std::uint32_t kMask = kUnitQueueDepth - 1;
    std::size_t v[kUnitQueueDepth] = {};
    std::uint32_t head = 0, n = 0;
    bool empty() const { return n == 0; }
    std::size_t size() const { return n; }
    std::size_t front() const { return v[head]; }
    void pop_front() {
      head = (head + 1) & kMask;
      --n;
    }
    void push_back(std::size_t i) {
      v[(head + n) & kMask] = i;
      ++n;
    }
  };
  UnitQueue m_queue[3];
  InstrEventTracker m_tracker;  // each instruction's dispatch and done cycles

  std::uint64_t m_cycle = 0;
  bool m_finished = true;
  bool m_sleeping = false;
  // Sleeping in an R data stream: an R beat goes through the DMA in every
  // skipped cycle (ModelAxiPort::begin_stream).
  bool m_stream = false;
  // Sleeping in a store's W data stream (ModelDma::w_stream) until m_w_stream_end.
  bool m_w_stream = false;
  std::uint64_t m_w_stream_end = kNone;
  std::uint64_t m_inbound_wake = kNone;  // first edge after an inbound row arrived while sleeping
  std::uint64_t m_compute_wake = kNone;  // while sleeping: the first cycle the compute unit's outputs may change
  ModelCompute::Comb m_last_cc;          // the compute unit's outputs in the last evaluated cycle
  // Counters advance in runs: m_inc_mask holds the counters the last
  // evaluated cycle incremented (bit i = counter i), m_inc_run the cycles
  // since the mask last changed (skipped ones included) not yet in m_perf.
  std::array<std::uint64_t, kCounters> m_perf{};
  std::uint32_t m_inc_mask = 0;
  std::uint64_t m_inc_run = 0;
  std::deque<IciRow> m_out_queue, m_in_queue;
  std::uint64_t s_evaluated = 0;
};

}  // namespace mxc
