#pragma once
// ModelAxiPort: the timing of the AXI4 slave transactor that connects the RTL
// tile's DMA to a MemoryTarget (bridge/axi4_slave_transactor.h), replicated
// without data for the performance model (models never include bridge/).
// Mirrored configuration: one MemRequest per burst (request_bytes = 0), no
// random backpressure, oldest-first choice among ready IDs, the default
// burst limits. docs/model.md lists the rules.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "models/core/clock_domain.h"
#include "models/core/memory_target.h"
#include "models/core/request_ring.h"

namespace mxc {

/// What the slave drives in one cycle (a subset of the AXI4 slave pins).
struct ModelAxiOut {
  bool arready = false, awready = false, wready = false;
  bool rvalid = false, rlast = false;
  std::uint32_t rid = 0;
  bool bvalid = false;
  std::uint32_t bid = 0;
};

/// Master handshakes of one edge, as the DMA presents them.
struct ModelAxiIn {
  bool ar = false, aw = false;             ///< Address presented (valid).
  std::uint32_t ax_id = 0;
  std::uint64_t ax_addr = 0;
  std::uint32_t ax_beats = 0;
  bool w = false;                          ///< W beat presented.
  bool wlast = false;
  std::uint32_t w_bytes = 0;               ///< Bytes with WSTRB set in that beat.
  bool rready = false;
};

struct ModelAxiConfig {
  std::uint32_t beat_bytes = 32;
  std::uint32_t source = 0;
  std::uint32_t max_read_bursts = 64;
  std::uint32_t max_write_bursts = 64;
  std::uint32_t max_early_w_beats = 256;
  /// Kernel order: the memory runs before the tile at equal times, so a
  /// completion at exactly an edge is seen at that edge (else at the next).
  bool memory_first = false;
};

class ModelAxiPort {
 public:
  /// Installs itself as `mem`'s completion callback.
  ModelAxiPort(ModelAxiConfig cfg, MemoryTarget& mem, const ClockDomain& clock);

  /// Slave outputs for cycle `cycle` (picks the R beat / B to offer).
  void drive(std::uint64_t cycle, ModelAxiOut& out);
  /// Handshakes at the edge ending cycle `cycle`, at time `now`.
  void on_edge(const ModelAxiIn& in, const ModelAxiOut& out, Time now);

  bool idle() const { return m_live == 0 && m_early_w == 0; }
  /// Requests made and not yet accepted by the target (retried every edge).
  bool has_unsent() const { return !m_read_queue.empty() || !m_write_queue.empty(); }
  /// Requests in the target whose completion has not arrived.
  std::size_t in_target() const { return m_in_target_n; }
  /// Earliest cycle > `cycle` at which a received completion becomes visible; ~0 if none.
  std::uint64_t next_visible_after(std::uint64_t cycle) const;
  /// Earliest cycle > `cycle` at which a received write completion becomes visible; ~0 if none.
  std::uint64_t next_write_visible_after(std::uint64_t cycle) const;
  /// True when drive/on_edge changed anything since the last clear, other
  /// than the read data path (read_activity).
  bool activity() const { return m_activity; }
  /// True when an R burst was chosen or an R beat taken since the last clear.
  bool read_activity() const { return m_read_activity; }
  /// True when a W beat went into an open burst without finishing it (no
  /// request) since the last clear; not part of activity().
  bool write_beat() const { return m_w_beat; }
  void clear_activity() { m_activity = m_read_activity = m_w_beat = false; }
  /// W beats of skipped cycles (their WSTRB byte counts), none finishing the
  /// oldest open write burst.
  void take_w_beats(const std::uint16_t* bytes, std::size_t n);

  /// R data streams: from cycle `from` on, with RREADY high in every cycle
  /// and nothing else happening at the port, one beat of the burst drive()
  /// would choose is taken per cycle. begin_stream predicts where that stops
  /// (stream_end(): no beat visible; with `one_burst` also the cycle after
  /// the chosen burst's last beat), without changing anything; completions
  /// arriving meanwhile move the prediction. end_stream(target) takes the
  /// beats of cycles from .. target - 1 (target <= stream_end()) and returns
  /// the IDs of the bursts finished (bit i = ID i). begin_stream returns false
  /// when there is nothing to stream or it cannot predict (an ID with two
  /// read bursts open).
  bool begin_stream(std::uint64_t from, bool one_burst);
  std::uint64_t stream_end() const { return m_stream.end; }
  std::uint64_t end_stream(std::uint64_t target);

  std::uint64_t bytes_read() const { return s_bytes_read; }
  std::uint64_t bytes_written() const { return s_bytes_written; }

 private:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  struct Burst {
    bool write = false;
    std::uint32_t id = 0;
    std::uint64_t addr = 0;
    std::uint32_t beats = 0;
    std::uint32_t beats_done = 0;
    bool responded = false;                   // the completion arrived
    std::uint64_t visible = kNone;            // first cycle its data / B may be offered
    std::vector<std::uint16_t> beat_bytes;    // writes: bytes with WSTRB set per beat
    bool live = false;                        // the slot holds a burst not yet finished
    std::uint64_t next_on_id = kNone;         // the next burst of the same ID and direction
  };
  /// The open bursts of one AXI ID in acceptance order: a list linked
  /// through Burst::next_on_id (no allocation per burst).
  struct IdQueue {
    std::uint64_t head = kNone, tail = kNone;
  };
  using ById = std::vector<IdQueue>;
  Burst& burst(std::uint64_t serial) { return m_slots[serial & m_slot_mask]; }
  const Burst& burst(std::uint64_t serial) const { return m_slots[serial & m_slot_mask]; }
  std::uint64_t add_burst(bool write, std::uint32_t id, std::uint64_t addr, std::uint32_t beats);
  void erase_burst(std::uint64_t serial);
  struct Responded {
    std::uint64_t serial, visible;
    std::uint32_t id;
  };
  void take_w_beat(std::uint32_t bytes, Time now);
  void finish_read(std::uint64_t serial);
  /// Removes the oldest burst of `id` from `by_id`; true when another remains.
  bool pop_id(ById& by_id, std::uint32_t id);
  void stream_arrival(std::uint64_t serial, std::uint64_t visible);
  void make_request(std::uint64_t serial, Time now);
  void on_response(const MemResponse& r);
  std::uint64_t pick(const std::vector<Responded>& responded, const ById& by_id, std::uint64_t cycle) const;
  static void retire(std::vector<Responded>& responded, std::uint64_t serial);

  ModelAxiConfig m_cfg;
  MemoryTarget& m_mem;
  const ClockDomain& m_clock;
  // Bursts by serial (acceptance order): slot serial - m_base; finished ones
  // leave from the front, so lookups are O(1) without a tree.
  // A ring of a power-of-two size: slot serial & m_slot_mask for serials in
  // [m_base, m_next_serial); grown when full. Slots are reused in place (no
  // allocation per burst).
  std::vector<Burst> m_slots = std::vector<Burst>(64);
  std::uint64_t m_slot_mask = 63;
  std::uint64_t m_base = 0;
  std::size_t m_live = 0;
  ById m_reads_by_id, m_writes_by_id;
  std::deque<std::uint64_t> m_w_order;
  std::deque<std::uint16_t> m_early_bytes;
  std::size_t m_early_w = 0;
  RequestRing m_read_queue, m_write_queue;  // waiting to be offered
  // Burst serial of request id r (kNone once completed) for ids in
  // [m_req_base, m_next_req): ids are sequential, so a ring indexed by
  // id & mask (grown when full) replaces a map.
  std::vector<std::uint64_t> m_in_target = std::vector<std::uint64_t>(64, kNone);
  std::uint64_t m_req_base = 0;
  std::size_t m_in_target_n = 0;
  // Bursts whose completion arrived, not yet finished: the only candidates
  // for R / B (keeps the per-cycle choice cheap).
  std::vector<Responded> m_responded_reads, m_responded_writes;
  std::uint64_t m_next_serial = 0, m_next_req = 0;
  std::uint32_t m_open_reads = 0, m_open_writes = 0;
  std::uint64_t m_r_current = kNone, m_b_current = kNone;
  bool m_activity = false, m_read_activity = false, m_w_beat = false;
  // Read bursts whose ID has another read burst open (begin_stream needs none).
  std::uint32_t m_shared_id_reads = 0;
  // The R data stream in progress (begin_stream .. end_stream).
  struct Pending {
    std::uint64_t visible;
    std::uint32_t beats;
    static bool earlier(const Pending& a, const Pending& b) { return a.visible < b.visible; }
  };
  struct Stream {
    bool on = false, one_burst = false;
    std::uint64_t from = 0, end = kNone;
    std::uint64_t serial = 0;        // one_burst: the burst streaming
    std::vector<Pending> pending;    // otherwise: responded bursts visible after `end`, by visibility
    /// The stream goes on through the beats of the bursts visible by its end.
    void absorb();
  } m_stream;
  std::uint64_t s_bytes_read = 0, s_bytes_written = 0;
};

}  // namespace mxc
