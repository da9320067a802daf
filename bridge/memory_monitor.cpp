#include "bridge/memory_monitor.h"

namespace mxc {

MemoryMonitor::MemoryMonitor(MemoryTarget& inner, std::string name)
    : m_inner(inner), m_name(name.empty() ? inner.name() + ".monitor" : std::move(name)) {
  m_inner.set_completion([this](const MemResponse& resp) { on_complete(resp); });
}

MemoryMonitor::~MemoryMonitor() { m_inner.set_completion(nullptr); }

bool MemoryMonitor::send(const MemRequest& req, Time now) {
  if (!m_inner.send(req, now)) return false;
  m_pending.emplace(std::make_pair(req.source, req.id), m_log.size());
  m_log.push_back({req.id, req.source, req.addr, req.bytes, req.write, req.issue, now, kNever});
  ++m_outstanding;
  return true;
}

void MemoryMonitor::on_complete(const MemResponse& resp) {
  const std::pair<std::uint32_t, std::uint64_t> key{resp.source, resp.id};
  auto it = m_pending.lower_bound(key);  // the oldest of equal keys
  if (it == m_pending.end() || it->first != key) {
    ++s_unmatched;
  } else {
    m_log[it->second].complete = resp.complete;
    m_pending.erase(it);
    --m_outstanding;
  }
  complete(resp);
}

}  // namespace mxc
