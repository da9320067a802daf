#include "bridge/memory_monitor.h"

#include <algorithm>

#include "models/core/hex.h"

namespace mxc {

namespace {
constexpr std::size_t kNoEntry = ~std::size_t{0};
}  // namespace

std::uint64_t byte_mask_digest(const std::vector<bool>& enable) {
  // FNV-1a over the indices of the disabled bytes: the same mask always gives the same digest,
  // on every platform, and masks that differ almost surely differ in it.
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  std::uint64_t disabled = 0;
  for (std::size_t i = 0; i < enable.size(); ++i) {
    if (enable[i]) continue;
    ++disabled;
    for (int k = 0; k < 8; ++k) hash = (hash ^ ((i >> (8 * k)) & 0xff)) * 0x100000001b3ULL;
  }
  if (disabled == 0) return 0;
  constexpr std::uint64_t kLow = (std::uint64_t{1} << 48) - 1;
  return std::min<std::uint64_t>(disabled, 0xffff) << 48 | (hash & kLow);
}

std::string describe_byte_mask(std::uint64_t digest, std::uint32_t bytes) {
  if (digest == 0) return "all " + std::to_string(bytes) + " bytes";
  const std::uint64_t disabled = digest >> 48;
  const std::uint64_t enabled = bytes > disabled ? bytes - disabled : 0;
  return std::to_string(enabled) + " of " + std::to_string(bytes) + " bytes (mask digest " + hex(digest) + ")";
}

MemoryMonitor::MemoryMonitor(MemoryTarget& inner, std::string name)
    : m_inner(inner), m_name(name.empty() ? inner.name() + ".monitor" : std::move(name)) {
  m_inner.set_completion([this](const MemResponse& resp) { on_complete(resp); });
}

MemoryMonitor::~MemoryMonitor() { m_inner.set_completion(nullptr); }

bool MemoryMonitor::send(const MemRequest& req, Time now) {
  if (!m_inner.send(req, now)) return false;
  // Checked after the call: a monitor standing in may have resumed during it.
  if (!m_paused) record_accepted({req.id, req.source, req.addr, req.bytes, req.write, req.issue, now, kNever,
                                   req.write ? byte_mask_digest(req.byte_enable) : 0});
  return true;
}

void MemoryMonitor::record_accepted(const MemoryLogEntry& e) {
  const std::size_t index = m_log.size();
  const Key key{e.source, e.id};
  Slot& slot = m_ring[e.id & (kSlots - 1)];
  const auto chain_behind = [&](Chain& chain) {
    m_next_same[chain.newest] = index;
    chain.newest = index;
  };
  if (slot.used && slot.key == key) {
    chain_behind(slot.chain);
  } else if (const auto it = m_pending.empty() ? m_pending.end() : m_pending.find(key); it != m_pending.end()) {
    chain_behind(it->second);
  } else if (!slot.used) {
    slot = Slot{key, Chain{index, index}, true};
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
  m_log.push_back(e).complete = kNever;
  ++m_outstanding;
}

bool MemoryMonitor::complete_oldest(Chain& chain, Time complete) {
  m_log[chain.oldest].complete = complete;
  --m_outstanding;
  if (chain.oldest == chain.newest) return true;
  chain.oldest = m_next_same[chain.oldest];
  return false;
}

void MemoryMonitor::on_complete(const MemResponse& resp) {
  ++m_answered;
  if (!m_paused) record_completion(resp.source, resp.id, resp.complete);
  complete(resp);
}

void MemoryMonitor::record_completion(std::uint32_t source, std::uint64_t id, Time complete) {
  const Key key{source, id};
  Slot& slot = m_ring[id & (kSlots - 1)];
  if (slot.used && slot.key == key) {
    if (complete_oldest(slot.chain, complete)) slot.used = false;
  } else if (const auto it = m_pending.find(key); it != m_pending.end()) {
    if (complete_oldest(it->second, complete)) m_spare.push_back(m_pending.extract(it));
  } else {
    ++s_unmatched;
  }
}

}  // namespace mxc
