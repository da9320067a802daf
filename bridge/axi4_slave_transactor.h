#pragma once
// Axi4SlaveTransactor: the slave end of an AXI4 master (the tile's DMA port),
// turning bursts into MemRequests for a MemoryTarget that may run in another
// clock domain, and the MemoryTarget's completions back into R beats and B
// responses on the tile clock.
//
// Per tile cycle the owner of the verilated master calls
//   1. drive(out)            before the rising edge: the slave's outputs;
//   2. (writes them to the pins, eval(), reads the master's pins;)
//   3. on_edge(m, s, now)    every channel with valid && ready in (m, s) is a
//                            handshake at this edge; new MemRequests are
//                            offered to the target with time `now`.
// A completion the target delivers (from its advance_to) at any time is used
// by the next drive(). Requests the target refuses are offered again at the
// following edges, in order (one read and one write request per edge).
//
// Ordering (AXI4): R beats of one ID come in AR order; beats of different IDs
// interleave, the ID of each beat drawn by a seeded generator among the IDs
// whose next beat has data. B responses per ID in AW order, after every
// MemRequest of the burst completed. W beats are matched to AW bursts in AW
// order, and may precede their AW (up to max_early_w_beats).
//
// Bursts become MemRequests of request_bytes (a multiple of the beat; 0 = one
// request per burst); since a legal burst never crosses 4 KiB, neither does a
// request. Write requests carry a byte mask only when a WSTRB bit was low.
//
// Illegal master behaviour that is cheap to see throws Axi4ProtocolError
// (bridge/axi4_protocol_error.h: a std::runtime_error carrying the Mismatch
// record): a burst crossing 4 KiB, AxLEN > 255, the reserved burst type 3,
// AxSIZE wider than the bus, WLAST not on beat AWLEN+1, a W beat not of the
// bus's width. Legal AXI4 this slave does not serve (FIXED or WRAP bursts,
// AxSIZE narrower than the bus, an unaligned INCR start, an ID over 16 bits)
// throws it too, marked unsupported(): refused, but not called a violation.
#include <bit>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "bridge/axi4_signals.h"
#include "models/core/memory_target.h"
#include "models/core/request_ring.h"

namespace mxc {

/// Probabilities of seeded random backpressure per channel, each in [0, 1).
struct Axi4Backpressure {
  double arready_low = 0.0;  ///< ARREADY low in a cycle.
  double awready_low = 0.0;  ///< AWREADY low in a cycle.
  double wready_low = 0.0;   ///< WREADY low in a cycle.
  double rvalid_gap = 0.0;   ///< No R beat offered in a cycle although one is ready.
  double bvalid_gap = 0.0;   ///< No B offered in a cycle although one is ready.
};

struct Axi4SlaveConfig {
  std::string name = "axi";
  std::uint32_t beat_bytes = 32;        ///< Data bus width in bytes (power of two).
  std::uint32_t request_bytes = 0;      ///< MemRequest size (multiple of beat_bytes); 0 = one per burst.
  std::uint32_t max_read_bursts = 64;   ///< Read bursts accepted and not fully returned; ARREADY low at the limit.
  std::uint32_t max_write_bursts = 64;  ///< Write bursts accepted and not answered; AWREADY low at the limit.
  std::uint32_t max_early_w_beats = 256;  ///< W beats held before their AW arrives.
  std::uint32_t source = 0;             ///< MemRequest::source of this port's traffic.
  std::uint64_t seed = 1;               ///< Seeds backpressure and the choice among ready IDs.
  /// Choose the ID of each R beat / B at random among the ready ones (true),
  /// or take the oldest ready burst (false: no interleaving unless data
  /// arrives out of order; simplest for a performance model to mirror, so
  /// the RTL tile sets it only under backpressure).
  bool random_interleave = true;
  Axi4Backpressure backpressure;        ///< Default: none (timing runs).
};

class Axi4SlaveTransactor {
 public:
  /// Installs itself as `mem`'s completion callback.
  Axi4SlaveTransactor(Axi4SlaveConfig cfg, MemoryTarget& mem);

  /// The slave's outputs for the coming edge; call once per cycle.
  void drive(Axi4SlaveSignals& out);
  /// Processes the handshakes of the edge at `now` (m: master pins, s: what drive() returned).
  void on_edge(const Axi4MasterSignals& m, const Axi4SlaveSignals& s, Time now);

  /// No burst accepted and not finished, and no early W beat held.
  bool idle() const { return m_live_bursts == 0 && m_early_w.empty(); }
  /// Bursts accepted and not finished, and W beats held with no AW for them
  /// yet (a master that sends W beats it never gives an address leaves them
  /// here for good: a hang's report names them).
  std::size_t live_bursts() const { return m_live_bursts; }
  std::size_t early_w_beats() const { return m_early_w.size(); }
  const Axi4SlaveConfig& config() const { return m_cfg; }

  std::uint64_t read_bursts() const { return s_read_bursts; }
  std::uint64_t write_bursts() const { return s_write_bursts; }
  std::uint64_t read_beats() const { return s_read_beats; }
  std::uint64_t write_beats() const { return s_write_beats; }
  std::uint64_t bytes_read() const { return s_bytes_read; }
  std::uint64_t bytes_written() const { return s_bytes_written; }  ///< Bytes with WSTRB set.
  std::uint64_t requests() const { return s_requests; }           ///< MemRequests accepted by the target.
  /// R beats whose ID differs from the previous beat's while that burst was unfinished.
  std::uint64_t read_interleavings() const { return s_read_interleavings; }

 private:
  struct Burst {
    std::uint64_t serial = 0;
    bool write = false;
    std::uint32_t id = 0;
    std::uint64_t addr = 0;
    std::uint32_t beats = 0;
    std::vector<std::uint8_t> data;
    std::vector<std::uint8_t> strb;  // writes: 1 per byte with WSTRB set (bytes, not bits: set per W beat)
    std::vector<bool> beat_ready;   // reads: data of this beat arrived
    std::uint32_t beats_done = 0;   // reads: beats sent on R; writes: beats received on W
    std::uint32_t pieces = 0, pieces_done = 0;
    bool live = false;              // accepted and not finished
  };
  struct Piece {
    std::uint64_t burst = 0;   // serial of its burst
    std::uint32_t offset = 0;  // bytes into the burst
    bool pending = false;      // in the target, not completed
  };

  // Bursts per AXI ID in acceptance order (in m_bursts, whose elements do
  // not move). pick() runs in every cycle a beat or response waits: it walks only
  // the IDs whose head burst can go out (`ready`, by ID). Walking every ID with a
  // burst in flight and testing its head cost more on a slow memory, which keeps
  // many in flight and makes which of them is ready a branch on the data.
  struct IdQueues {
    // Indexed by ID (IDs are a few bits wide): one load, where a tree walk's branches were
    // mispredicted on every burst. Queues are kept once made (no allocation per burst).
    std::vector<std::deque<Burst*>> by_id;
    // IDs whose head burst can go out now (a read's next beat arrived, a write's response is
    // due), as a bit set (bit id % 64 of word id / 64). Kept by update_ready() at every event
    // that may change a head or its readiness: a burst queued or finished, data or a
    // response arriving, a beat taken.
    std::vector<std::uint64_t> ready;
    void push(std::uint32_t id, Burst* burst);
    void pop(std::uint32_t id);
    /// Sets or clears id's bit in `ready`: whether its head burst satisfies is_ready.
    template <class Ready>
    void update_ready(std::uint32_t id, Ready is_ready) {
      const std::deque<Burst*>& q = by_id[id];
      const std::uint64_t bit = std::uint64_t{1} << (id % 64);
      if (!q.empty() && is_ready(*q.front()))
        ready[id / 64] |= bit;
      else
        ready[id / 64] &= ~bit;
    }
    bool any_ready() const {
      for (std::uint64_t w : ready)
        if (w != 0) return true;
      return false;
    }
    /// Calls f(id) for each ID whose head burst can go out, in ascending order.
    template <class F>
    void for_each_ready(F f) const {
      for (std::size_t w = 0; w < ready.size(); ++w)
        for (std::uint64_t bits = ready[w]; bits != 0; bits &= bits - 1)
          f(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
    }
  };
  /// A read burst's next beat may go out on R: its data arrived.
  static bool beat_ready(const Burst& b) { return b.beat_ready[b.beats_done]; }
  /// A write burst's response may go out on B: every beat came in and every piece was written.
  static bool answerable(const Burst& b) { return b.beats_done == b.beats && b.pieces_done == b.pieces; }

  void check_burst(const char* ch, std::uint32_t id, std::uint64_t addr, std::uint32_t len, std::uint32_t size,
                   std::uint32_t burst, Time now) const;
  std::uint64_t accept_burst(bool write, std::uint32_t id, std::uint64_t addr, std::uint32_t len, Time now);
  void take_w_beat(const std::vector<std::uint8_t>& data, const std::vector<bool>& strb, bool last, Time now);
  void make_requests(std::uint64_t serial, Time now);
  void on_response(const MemResponse& r);
  bool chance(std::mt19937_64& rng, double p);
  /// Serial of a burst, chosen among the IDs whose head burst in `queues` is ready.
  std::uint64_t pick(const IdQueues& queues);

  Axi4SlaveConfig m_cfg;
  MemoryTarget& m_mem;
  // Bursts by serial (acceptance order): serial s is m_bursts[s - m_burst_base].
  // Bursts finish out of order; finished ones leave from the front. Lookups
  // are O(1) however many bursts are in flight (a slow memory keeps dozens).
  std::deque<Burst> m_bursts;
  // Finished bursts kept for their buffers: a new burst takes one, so bursts
  // do not allocate their data, strobes and beat flags each time.
  std::vector<Burst> m_spare;
  Burst& new_burst();
  std::uint64_t m_burst_base = 0;
  std::size_t m_live_bursts = 0;
  Burst& burst(std::uint64_t serial) { return m_bursts[serial - m_burst_base]; }
  bool live(std::uint64_t serial) const;
  void erase_burst(std::uint64_t serial);
  IdQueues m_reads_by_id, m_writes_by_id;
  std::deque<std::uint64_t> m_w_order;      // write bursts still receiving W beats, AW order
  struct WBeat {
    std::vector<std::uint8_t> data;
    std::vector<bool> strb;
    bool last = false;
  };
  std::deque<WBeat> m_early_w;
  RequestRing m_read_queue, m_write_queue;  // not yet accepted by the target
  // MemRequests by id, handed out in order: id i is m_pieces[i - m_piece_base];
  // completed ones leave from the front.
  std::deque<Piece> m_pieces;
  std::uint64_t m_piece_base = 0;
  std::uint64_t m_next_serial = 0, m_next_req = 0;
  std::uint32_t m_open_reads = 0, m_open_writes = 0;
  std::uint64_t m_r_current = kNone, m_b_current = kNone;  // offered, awaiting ready
  std::uint64_t m_r_last = kNone;                          // burst of the previous R beat
  bool m_rdata_dirty = true;              // the last drive() put a beat's data on R
  std::vector<std::uint64_t> m_candidates;  // pick()'s scratch list, kept to avoid an allocation per cycle
  std::mt19937_64 m_rng_ar, m_rng_aw, m_rng_w, m_rng_r, m_rng_b, m_rng_pick;

  std::uint64_t s_read_bursts = 0, s_write_bursts = 0, s_read_beats = 0, s_write_beats = 0;
  std::uint64_t s_bytes_read = 0, s_bytes_written = 0, s_requests = 0, s_read_interleavings = 0;

  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
};

}  // namespace mxc
