#pragma once
// AnalyticFabric: the message-level ICI model behind the Fabric seam, for
// pods too large for the packet model and as a cross-check of it. A message
// is not cut into wire packets: it crosses its dimension-order path as a
// whole, holding each link for the serialisation of all its wire packets
// (payload + headers), and its head moves on router_latency + link_latency
// after it started on a link (cut-through). A lone message therefore takes
// exactly the packet model's zero-load latency,
//   hops * (router_latency + link_latency) + serialisation.
// Every directed link sends one message at a time, first come first served
// (ties in event order), so the links' bandwidth bounds what crosses them:
// no chip gets more out than its links carry. Ignored: buffers and credits
// (a message waiting for a link waits in an unlimited queue and blocks no
// one upstream), the injection queue, and the packet-by-packet interleaving
// of messages on a link (one finishes before the next starts).
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/fabric.h"
#include "models/ici/event_queue.h"
#include "models/ici/ici_config.h"
#include "models/ici/ring_fifo.h"
#include "models/ici/routing.h"
#include "models/ici/topology.h"

namespace mxc::ici {

class AnalyticFabric : public Fabric {
 public:
  explicit AnalyticFabric(const IciConfig& cfg);

  std::string name() const override { return m_cfg.name; }
  Time next_event_time() const override { return m_events.next_time(); }
  void advance_to(Time now) override;

  std::uint32_t num_chips() const override { return m_topo.num_chips(); }
  bool can_inject(const IciPacket& pkt) const override { return pkt.src < m_topo.num_chips(); }
  bool inject(const IciPacket& pkt, Time now) override;

  const Topology& topology() const { return m_topo; }
  const IciConfig& config() const { return m_cfg; }
  /// Messages accepted and not yet delivered.
  std::uint64_t in_flight() const { return m_in_flight; }
  /// Time the link out of `chip` through `port` spent sending.
  Time link_busy_ps(std::uint32_t chip, std::uint32_t port) const {
    return m_links[chip * m_topo.num_ports() + port].s_busy_ps;
  }

  std::uint64_t s_messages = 0;
  std::uint64_t s_bytes = 0;

 private:
  enum Kind : std::uint32_t { kHop, kFree, kDeliver };
  struct Message {
    IciPacket pkt;
    Time ser = 0;           // serialisation of all its wire packets
    std::uint32_t cur = 0;  // chip its head is at
    RouteState route;       // the packet model's route (its dateline classes unused)
  };
  struct Link {
    bool busy = false;              // a message is being sent (a kFree event is queued)
    RingFifo<std::uint32_t> queue;  // messages waiting for it, oldest first
    Time s_busy_ps = 0;
  };

  void on_hop(std::uint32_t msg, Time now);
  /// Message `msg` starts on link `link` at `now`.
  void depart(std::uint32_t msg, std::uint32_t link, Time now);

  IciConfig m_cfg;
  Topology m_topo;
  DimensionOrderRouter m_router;
  EventQueue m_events;
  std::vector<Message> m_msgs;
  std::vector<std::uint32_t> m_free;
  std::vector<Link> m_links;  // chip * ports + port
  std::uint64_t m_in_flight = 0;
  Time m_now = 0;
};

}  // namespace mxc::ici
