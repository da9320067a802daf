#include "bridge/transport/remote_fabric.h"

#include <stdexcept>

namespace mxc::transport {

RemoteFabric::RemoteFabric(std::shared_ptr<ClientSession> session) : m_session(std::move(session)) {
  if (m_session->fabric_chips() == 0)
    throw TransportError("transport: server " + m_session->address() + " serves no fabric (single-chip system)");
  m_next = m_session->advance(kFabricTarget, kNever, m_unused, m_deliveries);
}

void RemoteFabric::advance_to(Time now) {
  m_deliveries.clear();
  m_next = m_session->advance(kFabricTarget, now, m_unused, m_deliveries);
  ++m_state;
  for (const IciPacket& p : m_deliveries) deliver(p);
}

bool RemoteFabric::can_inject(const IciPacket& pkt) const {
  if (m_probe_state == m_state && m_probe_id == pkt.id && m_probe_src == pkt.src) return m_probe_answer;
  m_probe_answer = m_session->packet(pkt, 0, true).accepted;
  m_probe_state = m_state;
  m_probe_id = pkt.id;
  m_probe_src = pkt.src;
  return m_probe_answer;
}

bool RemoteFabric::inject(const IciPacket& pkt, Time now) {
  const AckMsg a = m_session->packet(pkt, now, false);
  m_next = a.next_event;
  if (a.accepted) ++m_state;
  return a.accepted;
}

}  // namespace mxc::transport
