#include "models/ici/analytic_fabric.h"

#include <algorithm>
#include <stdexcept>

namespace mxc::ici {

AnalyticFabric::AnalyticFabric(const IciConfig& cfg) : m_cfg(validated(cfg)), m_topo(cfg.dims, cfg.wrap) {}

bool AnalyticFabric::inject(const IciPacket& pkt, Time now) {
  if (pkt.src >= m_topo.num_chips() || pkt.dst >= m_topo.num_chips())
    throw std::out_of_range(m_cfg.name + ": packet " + std::to_string(pkt.id) + " from chip " +
                            std::to_string(pkt.src) + " to chip " + std::to_string(pkt.dst) + ", fabric has " +
                            std::to_string(m_topo.num_chips()) + " chips");
  if (now < m_now)
    throw std::logic_error(m_cfg.name + ": inject at " + std::to_string(now) + " ps, before the last event at " +
                           std::to_string(m_now) + " ps");
  // A pair's messages leave the source one after another: one waits until
  // the pair's previous one has been serialised (a message cut into
  // pieces takes the sum of their times, not one piece's).
  Pair& pair = m_pairs[{pkt.src, pkt.dst}];
  const Time start = std::max(now, pair.sent);
  pair.sent = start + m_cfg.message_serialise_ps(pkt.bytes);
  Time t = start + m_cfg.zero_load_ps(m_topo.hops(pkt.src, pkt.dst), pkt.bytes);
  t = std::max(t, pair.last);  // in order per pair; ties keep injection order
  pair.last = t;
  std::uint32_t i;
  if (m_free.empty()) {
    i = static_cast<std::uint32_t>(m_pkts.size());
    m_pkts.emplace_back();
  } else {
    i = m_free.back();
    m_free.pop_back();
  }
  m_pkts[i] = pkt;
  m_pkts[i].inject = now;
  m_pkts[i].deliver = t;
  m_events.push(t, 0, i);
  return true;
}

void AnalyticFabric::advance_to(Time now) {
  while (!m_events.empty() && m_events.next_time() <= now) {
    const Event e = m_events.pop();
    m_now = e.time;
    IciPacket pkt = std::move(m_pkts[e.a]);
    m_free.push_back(e.a);
    ++s_messages;
    s_bytes += pkt.bytes;
    deliver(pkt);
  }
  if (now > m_now) m_now = now;
}

}  // namespace mxc::ici
