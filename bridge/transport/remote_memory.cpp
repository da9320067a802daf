#include "bridge/transport/remote_memory.h"

#include <stdexcept>

#include "models/core/ideal_memory.h"

namespace mxc::transport {

namespace {

bool same_question(const MemRequest& a, const MemRequest& b) {
  return a.id == b.id && a.addr == b.addr && a.bytes == b.bytes && a.write == b.write && a.source == b.source &&
         a.issue == b.issue && a.byte_enable == b.byte_enable && a.data.size() == b.data.size();
}

}  // namespace

RemoteMemoryTarget::RemoteMemoryTarget(std::shared_ptr<ClientSession> session, std::uint32_t chip, std::string name)
    : m_session(std::move(session)), m_chip(chip), m_name(std::move(name)), m_contract(m_session->contract()) {
  if (m_contract.capacity == 0) m_next = m_session->advance(m_chip, kNever, m_completions, m_unused);
}

void RemoteMemoryTarget::advance_to(Time now) {
  m_completions.clear();
  if (m_contract.capacity > 0) {
    const std::size_t n = m_in_flight.size() - in_flight_at(m_in_flight, now);
    m_session->take_completions(m_chip, n, m_completions);
    // As the served model does: retire one, report it, then the next.
    for (const MemResponse& r : m_completions) {
      const InFlight want = m_in_flight.front();
      if (r.id != want.id || r.complete != want.complete)
        throw TransportError("transport: server " + m_session->address() + ": completion of request " +
                             std::to_string(r.id) + " at " + std::to_string(r.complete) + " ps breaks the " +
                             "fixed-latency contract (expected request " + std::to_string(want.id) + " at " +
                             std::to_string(want.complete) + " ps)");
      m_in_flight.pop_front();
      m_next = m_in_flight.empty() ? kNever : m_in_flight.front().complete;
      complete(r);
    }
    return;
  }
  m_next = m_session->advance(m_chip, now, m_completions, m_unused);
  ++m_state;
  for (const MemResponse& r : m_completions) complete(r);
}

bool RemoteMemoryTarget::can_accept(const MemRequest& req) const {
  if (m_contract.capacity > 0) return m_in_flight.size() < m_contract.capacity;
  if (m_probe_state == m_state && same_question(m_probe, req)) return m_probe_answer;
  m_probe_answer = m_session->request(m_chip, req, 0, true).accepted;
  m_probe_state = m_state;
  m_probe = req;
  m_probe.data.clear();  // only its size matters to the question
  m_probe.data.resize(req.data.size());
  return m_probe_answer;
}

bool RemoteMemoryTarget::send(const MemRequest& req, Time now) {
  if (m_contract.capacity > 0) {
    if (in_flight_at(m_in_flight, now) >= m_contract.capacity) return false;  // the served model would refuse too
    // The served model's own check, here, so the error comes from this call as it would locally.
    if (req.write && req.data.size() != req.bytes)
      throw std::invalid_argument(m_name + ": write request " + std::to_string(req.id) + " carries " +
                                  std::to_string(req.data.size()) + " bytes, expected " + std::to_string(req.bytes));
    m_session->post_request(m_chip, req, now);
    m_in_flight.push_back({req.id, now + m_contract.latency_ps});
    m_next = m_in_flight.front().complete;
    return true;
  }
  const AckMsg a = m_session->request(m_chip, req, now, false);
  m_next = a.next_event;
  if (a.accepted) ++m_state;
  return a.accepted;
}

void RemoteMemoryTarget::backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) {
  m_session->backdoor_write(m_chip, addr, data);
}

void RemoteMemoryTarget::finish(Time now) {
  // An ideal memory keeps nothing to report (and a served ideal one needs no end).
  if (m_session->options().system.memory != "hbm" || m_end) return;
  m_end = m_session->finish_memory(m_chip, now);
  if (!m_end->error.empty()) throw std::logic_error(m_end->error);
}

void RemoteMemoryTarget::backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const {
  m_session->backdoor_read(m_chip, addr, out);
}

}  // namespace mxc::transport
