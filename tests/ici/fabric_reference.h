#pragma once
// A second, independent implementation of the packet fabric's timing rules
// (docs/ici.md, "The packet model"), for tests only: a plain discrete-event
// loop over explicit per-link queues and credit counters, written for
// clarity, not speed. tests/ici/test_random_fabric.cpp runs random traffic on
// it and on TorusFabric and compares every delivery.
//
// Each picosecond that has events runs in two phases: first every event due
// at it (local messages ready, packets routed a router latency after their
// head arrived, tails ejected, credits back, links going free), in the order
// they were scheduled; then every output link that something happened to and
// that is idle picks one packet, round robin, in link order. Sends with zero
// latencies can cause more events at the same picosecond; the two phases
// repeat until nothing is left at it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/core/ici_packet.h"
#include "models/core/time.h"
#include "models/ici/ici_config.h"

namespace mxc::ici::test {

class FabricReference {
 public:
  explicit FabricReference(const IciConfig& cfg);

  std::uint32_t num_chips() const { return m_chips; }
  /// Runs every event up to and including `now`, then accepts the message
  /// unless its source already holds injection_queue messages not yet sent.
  bool inject(const IciPacket& pkt, Time now);
  /// Runs every event up to and including `t`.
  void run_until(Time t);
  /// Runs until nothing is in flight (or nothing can move).
  void run_all() { run_until(kNever - 1); }
  /// The Fabric driver's names for the same.
  Time next_event_time() const { return m_events.empty() ? kNever : m_events.begin()->first; }
  void advance_to(Time t) { run_until(t); }
  /// Runs whole picoseconds up to `limit`, but stops after the first at which a chip's full
  /// injection queue got space, and returns it (else `limit`).
  Time advance_until_space(Time limit);
  /// Messages delivered so far, in the order they were delivered (pkt.deliver set).
  const std::vector<IciPacket>& delivered() const { return m_delivered; }
  std::uint64_t in_flight() const { return m_in_flight; }

  /// Hops of dimension-order routing from src to dst (the zero-load formula's h).
  std::uint32_t hops(std::uint32_t src, std::uint32_t dst) const;
  /// The VC lane of a (source, destination) pair.
  std::uint32_t lane(std::uint32_t src, std::uint32_t dst) const;

 private:
  struct Msg {
    IciPacket pkt;
    std::uint64_t segs = 0, sent = 0, done = 0;
  };
  struct Seg {
    std::uint32_t msg = 0;
    std::uint64_t payload = 0;
    std::uint32_t at = 0;            // chip whose input buffer holds the packet
    std::uint32_t in_link = 0, in_vc = 0;
    std::uint32_t dim = kNoDim, cls = 0;  // dimension and dateline class of the last hop
  };
  static constexpr std::uint32_t kNoDim = 0xffffffffu;
  struct Out {                        // one link direction and the output port that drives it
    std::uint32_t to = 0xffffffffu;   // downstream chip, or none
    Time busy_until = 0;
    std::uint32_t rr = 0;             // next slot to look at: 2*vc + (0 transit, 1 local)
    std::vector<std::int64_t> credits;              // free flits downstream, per VC
    std::vector<std::vector<std::uint32_t>> transit;  // per VC: segment ids, oldest first
    std::vector<std::vector<std::uint32_t>> local;    // per VC: message ids, oldest first
  };
  enum class Ev { kLocalReady, kRoute, kTail, kCredit, kFree };
  struct Event {
    Ev kind;
    std::uint32_t a = 0, b = 0;
    std::int64_t n = 0;
  };

  struct Step {
    std::uint32_t port;
    bool wrap;
  };
  /// The next hop from `cur` to `dst` (cur != dst) by dimension order.
  Step next_step(std::uint32_t cur, std::uint32_t dst) const;
  std::uint32_t coord(std::uint32_t chip, std::uint32_t d) const { return chip / m_stride[d] % m_cfg.dims[d]; }
  std::uint32_t neighbour(std::uint32_t chip, std::uint32_t port) const;
  /// The output link and its VC for a packet at `cur` whose last hop was (dim, cls); updates both.
  std::pair<std::uint32_t, std::uint32_t> choose(std::uint32_t cur, std::uint32_t dst, std::uint32_t src,
                                                 std::uint32_t& dim, std::uint32_t& cls) const;
  std::uint64_t payload_of(const Msg& m, std::uint64_t index) const;
  std::uint32_t flits_of(std::uint64_t payload) const { return m_cfg.flits(payload + m_cfg.header_bytes); }

  void schedule(Time t, Event e) { m_events[t].push_back(e); }
  void run_time(Time t);
  void handle(const Event& e, Time t);
  void arbitrate(std::uint32_t link, Time t);
  void send_transit(std::uint32_t link, std::uint32_t vc, Time t);
  void send_local(std::uint32_t link, std::uint32_t vc, Time t);
  void start_on_link(std::uint32_t link, std::uint32_t vc, std::uint32_t seg, Time t);

  IciConfig m_cfg;
  std::uint32_t m_chips = 1, m_ports = 0, m_vcs = 0;
  std::vector<std::uint32_t> m_stride;
  std::vector<bool> m_wrap;
  std::vector<Out> m_out;                       // [chip * ports + port]
  std::vector<Msg> m_msgs;
  std::vector<Seg> m_segs;
  std::vector<std::uint32_t> m_waiting;         // per chip: accepted messages not fully sent
  std::map<Time, std::vector<Event>> m_events;  // by time, then in the order scheduled
  std::vector<std::uint32_t> m_dirty;           // links to arbitrate at the current time
  std::vector<IciPacket> m_delivered;
  std::uint64_t m_in_flight = 0;
  Time m_now = 0;
  bool m_space_made = false;  // a full injection queue got space
};

}  // namespace mxc::ici::test
