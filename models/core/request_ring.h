#pragma once
// Requests waiting to be offered to a memory, oldest first, in a ring of
// reused slots: no allocation per request, and a write's buffers keep their
// capacity from one request to the next. Senders fill a slot in place.
#include <cstddef>
#include <utility>
#include <vector>

#include "models/core/mem_transaction.h"

namespace mxc {

class RequestRing {
 public:
  bool empty() const { return m_n == 0; }
  std::size_t size() const { return m_n; }
  MemRequest& front() { return m_slots[m_head]; }
  const MemRequest& front() const { return m_slots[m_head]; }
  void pop_front() {
    m_head = (m_head + 1) & (m_slots.size() - 1);
    --m_n;
  }
  /// A slot at the back holding a previous request's values: set every field.
  MemRequest& push_back() {
    if (m_n == m_slots.size()) {  // full: double, oldest first
      std::vector<MemRequest> grown(m_slots.size() * 2);
      for (std::size_t i = 0; i < m_n; ++i) grown[i] = std::move(m_slots[(m_head + i) & (m_slots.size() - 1)]);
      m_slots = std::move(grown);
      m_head = 0;
    }
    return m_slots[(m_head + m_n++) & (m_slots.size() - 1)];
  }

 private:
  std::vector<MemRequest> m_slots = std::vector<MemRequest>(4);  // a power of two
  std::size_t m_head = 0, m_n = 0;
};

}  // namespace mxc
