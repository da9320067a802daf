#pragma once
// A growable ring buffer, oldest first: the FIFO of the event queue's lanes
// and of the links' waiting packets. Cheaper per push/pop than std::deque and
// compact (24 bytes plus one buffer), which matters for the ~1500 queues of a
// 4x4x4 torus touched on every packet-hop.
#include <algorithm>
#include <cstdint>
#include <memory>

namespace mxc::ici {

template <class T>
class RingFifo {
 public:
  RingFifo() = default;
  RingFifo(RingFifo&&) noexcept = default;
  RingFifo& operator=(RingFifo&&) noexcept = default;
  // A copy holds the same elements: a fabric copied in its state (a split run's server runs
  // a copy ahead to find the next delivery, docs/transport.md).
  RingFifo(const RingFifo& o) : m_mask(o.m_mask), m_head(o.m_head), m_tail(o.m_tail) {
    if (!o.m_buf) return;
    m_buf.reset(new T[o.capacity()]);
    std::copy(o.m_buf.get(), o.m_buf.get() + o.capacity(), m_buf.get());
  }
  RingFifo& operator=(const RingFifo& o) {
    if (this != &o) *this = RingFifo(o);
    return *this;
  }
  bool empty() const { return m_head == m_tail; }
  std::uint32_t size() const { return m_tail - m_head; }
  const T& front() const { return m_buf[m_head & m_mask]; }
  const T& back() const { return m_buf[(m_tail - 1) & m_mask]; }
  /// The k-th element behind the front, or nullptr.
  const T* ahead(std::uint32_t k) const { return k < size() ? &m_buf[(m_head + k) & m_mask] : nullptr; }
  /// The slot k places behind the front, in use or not: an address to
  /// prefetch (needs a buffer, i.e. a push before).
  const T* slot(std::uint32_t k) const { return &m_buf[(m_head + k) & m_mask]; }
  void push_back(const T& v) {
    if (size() == capacity()) grow();
    m_buf[m_tail++ & m_mask] = v;
  }
  void pop_front() { ++m_head; }

 private:
  // Counters run freely and wrap at 2^32, a multiple of every capacity.
  std::uint32_t capacity() const { return m_buf ? m_mask + 1 : 0; }
  void grow() {
    const std::uint32_t n = m_buf ? 2 * capacity() : 16;
    std::unique_ptr<T[]> b(new T[n]);
    for (std::uint32_t i = 0; i < size(); ++i) b[i] = m_buf[(m_head + i) & m_mask];
    m_tail = size();
    m_head = 0;
    m_buf = std::move(b);
    m_mask = n - 1;
  }
  std::unique_ptr<T[]> m_buf;
  std::uint32_t m_mask = 0;
  std::uint32_t m_head = 0;
  std::uint32_t m_tail = 0;
};

}  // namespace mxc::ici
