#pragma once
// TorusFabric: the packet-level ICI model behind the Fabric seam.
//
// A message (one IciPacket of any size) is cut into wire packets of at most
// max_payload_bytes plus a header. Wire packets move by virtual cut-through:
// a router forwards a packet router_latency after its head arrives, once the
// output link is free and the downstream input buffer of the chosen VC has
// credits for the whole packet (an idle link chooses, round robin, once all
// that happens at a picosecond has happened); the link is then busy for the packet's
// serialisation time and the head reaches the next router link_latency later.
// A buffer is freed when the packet's tail leaves it (or it is ejected), and
// the credit travels back in link_latency. Routing is dimension order with
// dateline VC classes (routing.h). All packets of one (source, destination)
// pair take the same path and the same VCs through FIFO queues, so messages
// between a pair arrive in the order they were injected. The message is
// delivered when its last wire packet has arrived (ejection is not limited).
//
// Zero-load latency of a message over h hops:
//   h * (router_latency + link_latency) + sum of its packets' serialisation.
//
// Event driven: events are link-free, credit-return, head-arrival and
// delivery times; an idle link schedules nothing.
//
// Statistics: s_messages, s_bytes (delivered payload), s_packet_hops,
// s_flit_hops, per-link packets / wire bytes / busy time.
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/fabric.h"
#include "models/ici/event_queue.h"
#include "models/ici/ici_config.h"
#include "models/ici/injection_watch.h"
#include "models/ici/link.h"
#include "models/ici/routing.h"
#include "models/ici/topology.h"

namespace mxc::ici {

class TorusFabric : public Fabric, public InjectionWatch {
 public:
  explicit TorusFabric(const IciConfig& cfg);

  std::string name() const override { return m_cfg.name; }
  Time next_event_time() const override;
  void advance_to(Time now) override;
  Time advance_until_space(Time limit) override;

  std::uint32_t num_chips() const override { return m_topo.num_chips(); }
  bool can_inject(const IciPacket& pkt) const override;
  /// Runs the events due by `now` first (docs/ici.md, "Injection at an
  /// event's time"); their deliveries come with the next advance_to().
  /// A driver advances to each event's time before offering later ones, as
  /// a kernel does: a delivery handed over late cannot inject at its own time.
  bool inject(const IciPacket& pkt, Time now) override;

  const Topology& topology() const { return m_topo; }
  const IciConfig& config() const { return m_cfg; }
  /// Messages accepted and not yet delivered.
  std::uint64_t in_flight() const { return m_in_flight; }
  /// True when messages are in flight but no event is pending: a deadlock.
  bool deadlocked() const { return m_in_flight > 0 && m_events.empty(); }
  /// The link out of `chip` through `port`.
  const Link& link(std::uint32_t chip, std::uint32_t port) const { return m_links[chip * m_topo.num_ports() + port]; }
  std::uint32_t num_vcs() const { return 2 * m_cfg.vcs_per_class; }

  std::uint64_t s_messages = 0;
  std::uint64_t s_bytes = 0;
  std::uint64_t s_packet_hops = 0;
  std::uint64_t s_flit_hops = 0;

 private:
  enum Kind : std::uint32_t { kRoute, kArrive, kEject, kCredit, kLinkFree };
  // Two cache lines: what routing and sending touch, up to pkt.dst, is in
  // the first.
  struct alignas(64) Message {
    std::uint64_t segs_total = 0;
    std::uint64_t segs_sent = 0;
    std::uint64_t segs_done = 0;
    Time last_ser = 0;
    std::uint32_t last_bytes = 0;  // payload of the last wire packet (the others are full)
    std::uint32_t last_flits = 0;
    std::uint32_t first_link = 0;
    std::uint8_t first_vc = 0;
    std::uint8_t lane = 0;
    RouteState first_state;       // route state after choosing the first hop
    IciPacket pkt;
  };
  // A wire packet in flight. It carries the message's destination and lane so
  // that a hop touches only the segment, not the (larger) message.
  struct Segment {
    std::uint32_t msg = 0;
    std::uint32_t chip = 0;       // router the head is at
    std::uint32_t dst = 0;        // destination chip of the message
    std::uint32_t in_link = 0;    // link whose downstream buffer holds it
    std::uint32_t flits = 0;
    std::uint32_t wire = 0;       // header + payload bytes
    Time ser = 0;
    RouteState route;
    std::uint8_t in_vc = 0;
    std::uint8_t lane = 0;
  };

  void run(const Event& e);
  /// Runs every event of the next picosecond (with any they add at it), then the woken links choose.
  void run_picosecond();
  /// Runs the picoseconds due by `now`.
  void run_through(Time now);
  /// inject()'s first part: runs the events due by `now`, their deliveries
  /// kept. Out of line: inject() is offered again and again while a queue
  /// is full, and its own code stays short that way.
  [[gnu::noinline]] void run_due(Time now);
  /// A message delivered: to the delivery function, or kept for the
  /// fabric's own step when inject() runs the events (m_defer).
  void hand_over(IciPacket&& pkt);
  /// Hands the kept deliveries due by `now` to the delivery function.
  void deliver_deferred(Time now);
  /// Every event at or before `t` has run.
  void cleared_through(Time t) { m_clear_before = std::max(m_clear_before, t == kNever ? t : t + 1); }
  /// One message fewer waiting at `chip` (it left or was delivered locally).
  void dequeued(std::uint32_t chip);
  void on_route(std::uint32_t msg, Time now);
  void on_arrive(std::uint32_t seg);
  /// Something changed at the link (a packet queued, a credit back, the link free): it arbitrates
  /// once every event of this picosecond has run.
  [[gnu::always_inline]] inline void wake(std::uint32_t link);
  /// The woken links arbitrate, in link order: the arbiter sees every packet ready at `now`.
  void arbitrate_woken(Time now);
  void on_eject(std::uint32_t seg, Time now);
  void try_send(std::uint32_t link, Time now);
  /// Sends at most one packet on an idle link, round robin over its slots; true if it did.
  bool arbitrate(std::uint32_t link, Time now);
  /// Sends the head of one (VC, transit|inject) slot of an idle link if its
  /// credits allow; true if it did.
  bool try_slot(std::uint32_t link, std::uint32_t slot, Time now);
  /// Starts loading what the event `e` will touch (the next one to run).
  // Always inlined: as a call, GCC finds the function free of side effects
  // (prefetches only) and drops the call, so nothing would be prefetched.
  [[gnu::always_inline]] inline void prefetch(const Event& e) const;
  void send(std::uint32_t link, std::uint32_t vc, std::uint32_t seg, Time now);
  std::uint32_t alloc_segment();
  std::uint32_t alloc_message();

  IciConfig m_cfg;
  Topology m_topo;
  DimensionOrderRouter m_router;
  std::vector<Link> m_links;
  EventQueue m_events;
  std::vector<Message> m_msgs;
  std::vector<std::uint32_t> m_free_msgs;
  std::vector<Segment> m_segs;
  std::vector<std::uint32_t> m_free_segs;
  std::vector<std::uint32_t> m_woken;        // links to arbitrate at the end of this picosecond: the first m_num_woken
  std::size_t m_num_woken = 0;
  bool m_woken_unsorted = false;             // they are not in link order
  std::vector<std::uint32_t> m_queued_msgs;  // per chip: messages not yet fully departed
  std::uint64_t m_in_flight = 0;
  Time m_full_ser = 0;  // serialisation of a maximum-size packet
  std::uint32_t m_full_flits = 0;
  Time m_now = 0;
  bool m_space_freed = false;  // a full injection queue got space (advance_until_space)
  bool m_running = false;      // running events (an inject() from a delivery then runs none)
  bool m_defer = false;        // inject() is running the events due: deliveries wait (m_deferred)
  Time m_clear_before = 0;     // every event before it has run (inject() need not look for any)
  std::vector<IciPacket> m_deferred;  // deliveries made inside inject(), by time
  // Sets a flag for its lifetime, restored on the way out by an exception too.
  struct FlagScope {
    explicit FlagScope(bool& flag) : m_flag(flag), m_was(flag) { flag = true; }
    ~FlagScope() { m_flag = m_was; }
    FlagScope(const FlagScope&) = delete;
    FlagScope& operator=(const FlagScope&) = delete;
    bool& m_flag;
    bool m_was;
  };
};

}  // namespace mxc::ici
