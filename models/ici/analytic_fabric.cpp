#include "models/ici/analytic_fabric.h"

#include <algorithm>
#include <stdexcept>

namespace mxc::ici {

AnalyticFabric::AnalyticFabric(const IciConfig& cfg)
    : m_cfg(validated(cfg)), m_topo(cfg.dims, cfg.wrap), m_router(m_topo),
      m_links(static_cast<std::size_t>(m_topo.num_chips()) * m_topo.num_ports()) {}

bool AnalyticFabric::inject(const IciPacket& pkt, Time now) {
  if (pkt.src >= m_topo.num_chips() || pkt.dst >= m_topo.num_chips())
    throw std::out_of_range(m_cfg.name + ": packet " + std::to_string(pkt.id) + " from chip " +
                            std::to_string(pkt.src) + " to chip " + std::to_string(pkt.dst) + ", fabric has " +
                            std::to_string(m_topo.num_chips()) + " chips");
  if (now < m_now)
    throw std::logic_error(m_cfg.name + ": inject at " + std::to_string(now) + " ps, before the last event at " +
                           std::to_string(m_now) + " ps");
  std::uint32_t i;
  if (m_free.empty()) {
    i = static_cast<std::uint32_t>(m_msgs.size());
    m_msgs.emplace_back();
  } else {
    i = m_free.back();
    m_free.pop_back();
  }
  Message& m = m_msgs[i];
  m.pkt = pkt;
  m.pkt.inject = now;
  m.ser = m_cfg.message_serialise_ps(pkt.bytes);
  m.cur = pkt.src;
  m.route = RouteState{};
  ++m_in_flight;
  // A message to its own chip crosses no link (zero latency, as in the packet model).
  if (pkt.src == pkt.dst)
    m_events.push_after(now, 0, kDeliver, i);
  else
    m_events.push_after(now, m_cfg.router_latency_ps, kHop, i);
  return true;
}

void AnalyticFabric::on_hop(std::uint32_t msg, Time now) {
  Message& m = m_msgs[msg];
  const std::uint32_t link = m.cur * m_topo.num_ports() + m_router.next_hop(m.cur, m.pkt.dst, m.route).port;
  Link& l = m_links[link];
  if (l.busy)
    l.queue.push_back(msg);  // sent when the messages ahead have been
  else
    depart(msg, link, now);
}

void AnalyticFabric::depart(std::uint32_t msg, std::uint32_t link, Time now) {
  Message& m = m_msgs[msg];
  Link& l = m_links[link];
  l.busy = true;
  l.s_busy_ps += m.ser;
  m_events.push_after(now, m.ser, kFree, link);
  m.cur = m_topo.neighbour(m.cur, link % m_topo.num_ports());
  if (m.cur == m.pkt.dst)
    m_events.push_after(now, m.ser + m_cfg.link_latency_ps, kDeliver, msg);
  else
    m_events.push_after(now, m_cfg.link_latency_ps + m_cfg.router_latency_ps, kHop, msg);
}

void AnalyticFabric::advance_to(Time now) {
  while (!m_events.empty() && m_events.next_time() <= now) {
    const Event e = m_events.pop();
    m_now = e.time;
    switch (e.kind) {
      case kHop:
        on_hop(e.a, e.time);
        break;
      case kFree: {
        Link& l = m_links[e.a];
        if (l.queue.empty()) {
          l.busy = false;
        } else {
          const std::uint32_t next = l.queue.front();
          l.queue.pop_front();
          depart(next, e.a, e.time);
        }
        break;
      }
      default: {
        IciPacket pkt = std::move(m_msgs[e.a].pkt);
        m_free.push_back(e.a);
        pkt.deliver = e.time;
        --m_in_flight;
        ++s_messages;
        s_bytes += pkt.bytes;
        deliver(pkt);
      }
    }
  }
  if (now > m_now) m_now = now;
}

}  // namespace mxc::ici
