#include "models/core/ideal_memory.h"

#include <stdexcept>

namespace mxc {

IdealMemory::IdealMemory(std::string name, Time latency_ps, std::size_t max_outstanding)
    : m_name(std::move(name)), m_latency(latency_ps), m_max_outstanding(max_outstanding) {
  if (m_max_outstanding == 0) throw std::invalid_argument(m_name + ": max_outstanding must be > 0");
}

Time IdealMemory::next_event_time() const {
  return m_in_flight.empty() ? kNever : m_in_flight.front().complete;
}

void IdealMemory::advance_to(Time now) {
  while (!m_in_flight.empty() && m_in_flight.front().complete <= now) {
    MemResponse resp = std::move(m_in_flight.front());
    m_in_flight.pop_front();
    complete(resp);
  }
}

bool IdealMemory::can_accept(const MemRequest&) const { return m_in_flight.size() < m_max_outstanding; }

bool IdealMemory::send(const MemRequest& req, Time now) {
  if (in_flight_at(m_in_flight, now) >= m_max_outstanding) return false;
  if (req.write && req.data.size() != req.bytes)
    throw std::invalid_argument(m_name + ": write request " + std::to_string(req.id) + " carries " +
                                std::to_string(req.data.size()) + " bytes, expected " + std::to_string(req.bytes));
  MemResponse resp;
  resp.id = req.id;
  resp.addr = req.addr;
  resp.bytes = req.bytes;
  resp.write = req.write;
  resp.source = req.source;
  resp.issue = req.issue;
  resp.accept = now;
  resp.complete = now + m_latency;
  // Functional effect at acceptance: a later read sees an earlier write.
  if (req.write) {
    if (!timing_only()) m_store.write_masked(req.addr, req.data, req.byte_enable);
    ++s_writes;
    s_bytes_written += req.bytes;
  } else {
    if (!timing_only()) resp.data = m_store.read(req.addr, req.bytes);
    ++s_reads;
    s_bytes_read += req.bytes;
  }
  m_in_flight.push_back(std::move(resp));
  return true;
}

void IdealMemory::backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) { m_store.write(addr, data); }

void IdealMemory::backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const { m_store.read(addr, out); }

}  // namespace mxc
