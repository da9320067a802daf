#pragma once
// A controller queue of bursts in arrival order. FR-FCFS mostly serves
// bursts near the front, so erase() shifts whichever side of the removed
// entry is shorter: a vector would move the whole tail on every command.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "models/hbm/queue_entry.h"

namespace mxc::hbm {

class BurstQueue {
 public:
  std::size_t size() const { return m_end - m_begin; }
  bool empty() const { return m_end == m_begin; }
  QueueEntry& operator[](std::size_t i) { return m_buf[m_begin + i]; }
  const QueueEntry& operator[](std::size_t i) const { return m_buf[m_begin + i]; }
  QueueEntry& front() { return m_buf[m_begin]; }
  const QueueEntry& front() const { return m_buf[m_begin]; }
  const QueueEntry* begin() const { return m_buf.data() + m_begin; }
  const QueueEntry* end() const { return m_buf.data() + m_end; }

  void push_back(const QueueEntry& e) {
    if (m_end == m_buf.size()) make_room();
    m_buf[m_end++] = e;
  }
  /// Appends an entry and returns it for the caller to fill in place, every
  /// field (building an entry elsewhere and copying it stalls on store
  /// forwarding, and clearing it first stores everything twice).
  QueueEntry& emplace_back() {
    if (m_end == m_buf.size()) make_room();
    return m_buf[m_end++];
  }
  /// Removes entry i, keeping the others in order.
  void erase(std::size_t i) {
    QueueEntry* const b = m_buf.data() + m_begin;
    if (i < size() / 2) {
      std::move_backward(b, b + i, b + i + 1);
      ++m_begin;
    } else {
      std::move(b + i + 1, m_buf.data() + m_end, b + i);
      --m_end;
    }
    if (m_begin == m_end) m_begin = m_end = 0;
  }

 private:
  void make_room() {
    if (m_begin > 0) {  // slide to the start of the buffer
      std::move(m_buf.begin() + static_cast<std::ptrdiff_t>(m_begin), m_buf.begin() + static_cast<std::ptrdiff_t>(m_end),
                m_buf.begin());
      m_end -= m_begin;
      m_begin = 0;
    }
    // Keep the buffer at least twice the occupancy, so a slide moves at most
    // one entry per push on average.
    if (m_end == m_buf.size() || m_end * 2 > m_buf.size()) m_buf.resize(std::max<std::size_t>(16, m_buf.size() * 2));
  }

  std::vector<QueueEntry> m_buf;
  std::size_t m_begin = 0, m_end = 0;
};

}  // namespace mxc::hbm
