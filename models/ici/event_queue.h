#pragma once
// A deterministic event queue: events run in (time, insertion order), never
// by pointer value, so a run replays bit for bit.
#include <cstdint>
#include <queue>
#include <vector>

#include "models/core/time.h"

namespace mxc::ici {

struct Event {
  Time time = 0;
  std::uint64_t seq = 0;
  std::uint32_t kind = 0;
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::uint32_t c = 0;
};

class EventQueue {
 public:
  void push(Time t, std::uint32_t kind, std::uint32_t a, std::uint32_t b = 0, std::uint32_t c = 0) {
    m_heap.push(Event{t, m_seq++, kind, a, b, c});
  }
  bool empty() const { return m_heap.empty(); }
  Time next_time() const { return m_heap.empty() ? kNever : m_heap.top().time; }
  Event pop() {
    Event e = m_heap.top();
    m_heap.pop();
    return e;
  }
  std::size_t size() const { return m_heap.size(); }

 private:
  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.time != y.time ? x.time > y.time : x.seq > y.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> m_heap;
  std::uint64_t m_seq = 0;
};

}  // namespace mxc::ici
