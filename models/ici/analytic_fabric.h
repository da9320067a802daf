#pragma once
// AnalyticFabric: the alpha-beta ICI model behind the Fabric seam, for pods
// too large for the packet model and as a cross-check of it. A message is
// delivered after hops * (router_latency + link_latency) plus the
// serialisation of its wire packets (payload + headers) at link bandwidth:
// exactly the packet model's zero-load latency. Contention is ignored; the
// only interactions between messages are those of a (source, destination)
// pair: delivered in injection order, and serialised one after another
// (a message starts when the pair's previous one has left the source).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/core/fabric.h"
#include "models/ici/event_queue.h"
#include "models/ici/ici_config.h"
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
  std::uint64_t in_flight() const { return m_events.size(); }

  std::uint64_t s_messages = 0;
  std::uint64_t s_bytes = 0;

 private:
  IciConfig m_cfg;
  Topology m_topo;
  EventQueue m_events;
  std::vector<IciPacket> m_pkts;
  std::vector<std::uint32_t> m_free;
  struct Pair {
    Time last = 0;  // the last delivery
    Time sent = 0;  // when the last message has left the source (serialised)
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, Pair> m_pairs;  // per (source, destination)
  Time m_now = 0;
};

}  // namespace mxc::ici
