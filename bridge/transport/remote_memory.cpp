#include "bridge/transport/remote_memory.h"

namespace mxc::transport {

namespace {

bool same_question(const MemRequest& a, const MemRequest& b) {
  return a.id == b.id && a.addr == b.addr && a.bytes == b.bytes && a.write == b.write && a.source == b.source &&
         a.issue == b.issue && a.byte_enable == b.byte_enable && a.data.size() == b.data.size();
}

}  // namespace

RemoteMemoryTarget::RemoteMemoryTarget(std::shared_ptr<ClientSession> session, std::uint32_t chip, std::string name)
    : m_session(std::move(session)), m_chip(chip), m_name(std::move(name)) {
  m_next = m_session->advance(m_chip, kNever, m_completions, m_unused);
}

void RemoteMemoryTarget::advance_to(Time now) {
  m_completions.clear();
  m_next = m_session->advance(m_chip, now, m_completions, m_unused);
  ++m_state;
  for (const MemResponse& r : m_completions) complete(r);
}

bool RemoteMemoryTarget::can_accept(const MemRequest& req) const {
  if (m_probe_state == m_state && same_question(m_probe, req)) return m_probe_answer;
  m_probe_answer = m_session->request(m_chip, req, 0, true).accepted;
  m_probe_state = m_state;
  m_probe = req;
  m_probe.data.clear();  // only its size matters to the question
  m_probe.data.resize(req.data.size());
  return m_probe_answer;
}

bool RemoteMemoryTarget::send(const MemRequest& req, Time now) {
  const AckMsg a = m_session->request(m_chip, req, now, false);
  m_next = a.next_event;
  if (a.accepted) ++m_state;
  return a.accepted;
}

void RemoteMemoryTarget::backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) {
  m_session->backdoor_write(m_chip, addr, data);
}

void RemoteMemoryTarget::backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const {
  m_session->backdoor_read(m_chip, addr, out);
}

}  // namespace mxc::transport
