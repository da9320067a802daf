#include "bridge/transport/chip_port.h"

#include <algorithm>

namespace mxc::transport {

ChipPort::ChipPort(std::shared_ptr<ClientSession> session) : m_session(std::move(session)) {
  if (m_session->fabric_chips() == 0)
    throw TransportError("transport: server " + m_session->address() + " serves no fabric");
}

Time ChipPort::next_event_time() const {
  const Time due = m_deliveries.empty() ? kNever : m_deliveries.front().time;
  return m_end ? due : std::min(due, m_grant);
}

void ChipPort::advance_to(Time now) {
  if (!m_end && now >= m_grant) window(now);
  while (!m_deliveries.empty() && m_deliveries.front().time <= now) {
    const IciPacket p = std::move(m_deliveries.front().pkt);
    m_deliveries.pop_front();
    deliver(p);
  }
}

bool ChipPort::inject(const IciPacket& pkt, Time now) {
  m_session->post_packet(pkt, now);
  return true;
}

void ChipPort::finished(Step step) {
  if (m_finished) return;
  m_finished = step;
  if (!m_end) window(step.first);
}

void ChipPort::window(Time now) {
  WindowMsg mine;
  mine.time = now;
  mine.next = m_finished || !m_next_local ? kNever : m_next_local();
  mine.done = m_finished.has_value();
  if (m_finished) {
    mine.end_time = m_finished->first;
    mine.end_component = m_finished->second;
  }
  m_incoming.clear();
  const WindowMsg answer = m_session->window(mine, m_incoming);
  // Deliveries come in the fabric's order, which is time order.
  for (auto& d : m_incoming) m_deliveries.push_back(std::move(d));
  if (answer.done) {
    m_end = Step{answer.end_time, answer.end_component};
    return;
  }
  // A finished client is held where the unfinished ones are (the end is not before them).
  if (answer.time < now || (answer.time == now && !m_finished))
    throw TransportError("transport: server " + m_session->address() + ": grant " + std::to_string(answer.time) +
                         " ps does not move past the window at " + std::to_string(now) + " ps");
  m_grant = answer.time;
}

}  // namespace mxc::transport
