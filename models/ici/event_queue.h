#pragma once
// A deterministic event queue: events run in (time, insertion order), never
// by pointer value, so a run replays bit for bit.
//
// Why lanes: a fabric schedules most events a fixed delay after the current
// time (router latency, link latency, a packet's serialisation), and the
// current time never goes back. Events pushed with the same delay therefore
// arrive already sorted, so each delay gets a FIFO lane and a pop takes the
// smallest (time, seq) among the lane heads. That replaces a binary heap of
// ~10^5 events (a cache miss per level) with a few sequential FIFOs. Events
// that do not fit a lane (no delay given, too many distinct delays, or an
// out-of-order push) go to a heap; the order of pops is the same either way.
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

/// A growable ring buffer of events, oldest first.
class EventFifo {
 public:
  bool empty() const { return m_head == m_tail; }
  const Event& front() const { return m_buf[m_head & m_mask]; }
  /// The k-th event behind the front, or nullptr.
  const Event* ahead(std::size_t k) const { return m_head + k < m_tail ? &m_buf[(m_head + k) & m_mask] : nullptr; }
  const Event& back() const { return m_buf[(m_tail - 1) & m_mask]; }
  void push(const Event& e) {
    if (m_tail - m_head == m_buf.size()) grow();
    m_buf[m_tail++ & m_mask] = e;
  }
  void pop() { ++m_head; }

 private:
  void grow() {
    const std::size_t n = m_buf.empty() ? 64 : 2 * m_buf.size();
    std::vector<Event> b(n);
    for (std::size_t i = m_head; i != m_tail; ++i) b[i - m_head] = m_buf[i & m_mask];
    m_tail -= m_head;
    m_head = 0;
    m_buf.swap(b);
    m_mask = n - 1;
  }
  std::vector<Event> m_buf;
  std::size_t m_mask = 0;
  std::size_t m_head = 0;  // both count up; the slot is index & mask
  std::size_t m_tail = 0;
};

class EventQueue {
 public:
  /// An event at absolute time t.
  void push(Time t, std::uint32_t kind, std::uint32_t a, std::uint32_t b = 0, std::uint32_t c = 0) {
    const Event e{t, m_seq++, kind, a, b, c};
    m_heap.push(e);
    note_push(kHeap, e);
  }
  /// An event `delay` after `now`. Callers whose `now` never goes back get
  /// the FIFO lane of the delay; anything else still runs in order.
  void push_after(Time now, Time delay, std::uint32_t kind, std::uint32_t a, std::uint32_t b = 0,
                  std::uint32_t c = 0) {
    const Event e{now + delay, m_seq++, kind, a, b, c};
    const std::uint32_t li = lane_for(delay, e.time, kind);
    if (li == kNone) {
      m_heap.push(e);
      note_push(kHeap, e);
    } else {
      m_lanes[li].q.push(e);
      note_push(li, e);
    }
  }
  bool empty() const { return m_size == 0; }
  Time next_time() const { return m_size == 0 ? kNever : at(best()).time; }
  Event pop() {
    const std::uint32_t b = best();
    Event e;
    if (b == kHeap) {
      e = m_heap.top();
      m_heap.pop();
    } else {
      e = m_lanes[b].q.front();
      m_lanes[b].q.pop();
    }
    m_last = b;
    --m_size;
    m_best = kNone;
    return e;
  }
  std::size_t size() const { return m_size; }
  /// The event k places behind the head of the lane of the last pop, if any:
  /// it runs soon, so its data is worth loading into cache now.
  const Event* soon(std::size_t k) const { return m_last == kHeap ? nullptr : m_lanes[m_last].q.ahead(k); }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  static constexpr std::uint32_t kHeap = 0xfffffffeu;
  static constexpr std::size_t kMaxLanes = 16;
  static constexpr std::uint32_t kHints = 8;
  struct Lane {
    Time delay = 0;
    EventFifo q;
  };
  static bool before(const Event& x, const Event& y) { return x.time != y.time ? x.time < y.time : x.seq < y.seq; }
  const Event& at(std::uint32_t where) const { return where == kHeap ? m_heap.top() : m_lanes[where].q.front(); }

  /// Keeps the cached earliest location right after `e` went to `where`. An
  /// event earlier than all others is necessarily the head of its lane (lanes
  /// are sorted) or the heap top.
  void note_push(std::uint32_t where, const Event& e) {
    if (m_size++ == 0) m_best = where;
    else if (m_best != kNone && before(e, at(m_best))) m_best = where;
  }
  /// The lane keyed by `delay` if an event at t keeps it sorted, else kNone.
  /// The lane last used by the same kind of event is tried first.
  std::uint32_t lane_for(Time delay, Time t, std::uint32_t kind) {
    std::uint32_t& hint = m_hint[kind % kHints];
    std::uint32_t found = hint < m_lanes.size() && m_lanes[hint].delay == delay ? hint : kNone;
    if (found == kNone) found = find_lane(delay);
    if (found == kNone) return kNone;
    hint = found;
    const EventFifo& q = m_lanes[found].q;
    return q.empty() || q.back().time <= t ? found : kNone;
  }
  /// The lane keyed by `delay`, made if needed; kNone when all are busy.
  std::uint32_t find_lane(Time delay) {
    std::uint32_t spare = kNone;
    for (std::uint32_t i = 0; i < m_lanes.size(); ++i) {
      if (m_lanes[i].delay == delay) return i;
      if (spare == kNone && m_lanes[i].q.empty()) spare = i;
    }
    if (m_lanes.size() < kMaxLanes) {
      m_lanes.emplace_back();
      m_lanes.back().delay = delay;
      return static_cast<std::uint32_t>(m_lanes.size() - 1);
    }
    if (spare != kNone) m_lanes[spare].delay = delay;  // re-key an idle lane
    return spare;
  }
  /// Where the earliest event is: a lane index or kHeap (needs m_size > 0).
  std::uint32_t best() const {
    if (m_best != kNone) return m_best;
    std::uint32_t b = kHeap;
    const Event* top = m_heap.empty() ? nullptr : &m_heap.top();
    for (std::uint32_t i = 0; i < m_lanes.size(); ++i) {
      const EventFifo& q = m_lanes[i].q;
      if (q.empty()) continue;
      if (top == nullptr || before(q.front(), *top)) {
        top = &q.front();
        b = i;
      }
    }
    m_best = b;
    return b;
  }

  struct Later {
    bool operator()(const Event& x, const Event& y) const { return before(y, x); }
  };
  std::priority_queue<Event, std::vector<Event>, Later> m_heap;
  std::vector<Lane> m_lanes;
  std::uint32_t m_hint[kHints] = {kNone, kNone, kNone, kNone, kNone, kNone, kNone, kNone};  // per event kind
  std::uint64_t m_seq = 0;
  std::size_t m_size = 0;
  std::uint32_t m_last = kHeap;  // where the last pop came from
  mutable std::uint32_t m_best = kNone;  // cached result of best(); kNone = unknown
};

}  // namespace mxc::ici
