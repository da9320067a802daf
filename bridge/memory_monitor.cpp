#include "bridge/memory_monitor.h"

namespace mxc {

MemoryMonitor::MemoryMonitor(MemoryTarget& inner, std::string name)
    : m_inner(inner), m_name(name.empty() ? inner.name() + ".monitor" : std::move(name)) {
  m_inner.set_completion([this](const MemResponse& resp) { on_complete(resp); });
}

MemoryMonitor::~MemoryMonitor() { m_inner.set_completion(nullptr); }

bool MemoryMonitor::send(const MemRequest& req, Time now) {
  if (!m_inner.send(req, now)) return false;
  m_pending[{req.source, req.id}].push_back(m_log.size());
  m_log.push_back({req.id, req.source, req.addr, req.bytes, req.write, req.issue, now, kNever});
  ++m_outstanding;
  return true;
}

void MemoryMonitor::on_complete(const MemResponse& resp) {
  auto it = m_pending.find({resp.source, resp.id});
  if (it == m_pending.end()) {
    ++s_unmatched;
  } else {
    m_log[it->second.front()].complete = resp.complete;
    it->second.pop_front();
    if (it->second.empty()) m_pending.erase(it);
    --m_outstanding;
  }
  complete(resp);
}

}  // namespace mxc
