#include "bridge/memory_monitor.h"

namespace mxc {

namespace {
constexpr std::size_t kNoEntry = ~std::size_t{0};
}  // namespace

MemoryMonitor::MemoryMonitor(MemoryTarget& inner, std::string name)
    : m_inner(inner), m_name(name.empty() ? inner.name() + ".monitor" : std::move(name)) {
  m_inner.set_completion([this](const MemResponse& resp) { on_complete(resp); });
}

MemoryMonitor::~MemoryMonitor() { m_inner.set_completion(nullptr); }

bool MemoryMonitor::send(const MemRequest& req, Time now) {
  if (!m_inner.send(req, now)) return false;
  const std::size_t index = m_log.size();
  const Key key{req.source, req.id};
  if (const auto it = m_pending.find(key); it != m_pending.end()) {
    m_next_same[it->second.newest] = index;
    it->second.newest = index;
  } else if (!m_spare.empty()) {
    PendingMap::node_type node = std::move(m_spare.back());
    m_spare.pop_back();
    node.key() = key;
    node.mapped() = Chain{index, index};
    m_pending.insert(std::move(node));
  } else {
    m_pending.emplace(key, Chain{index, index});
  }
  m_next_same.push_back(kNoEntry);
  m_log.push_back({req.id, req.source, req.addr, req.bytes, req.write, req.issue, now, kNever});
  ++m_outstanding;
  return true;
}

void MemoryMonitor::on_complete(const MemResponse& resp) {
  const auto it = m_pending.find(Key{resp.source, resp.id});
  if (it == m_pending.end()) {
    ++s_unmatched;
  } else {
    Chain& chain = it->second;
    m_log[chain.oldest].complete = resp.complete;  // the oldest with this key
    if (chain.oldest == chain.newest)
      m_spare.push_back(m_pending.extract(it));
    else
      chain.oldest = m_next_same[chain.oldest];
    --m_outstanding;
  }
  complete(resp);
}

}  // namespace mxc
