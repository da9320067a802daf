#pragma once
// A deterministic event queue: events run in (time, insertion order), never
// by pointer value, so a run replays bit for bit.
//
// Why lanes: a fabric schedules most events a fixed delay after the current
// time (router latency, link latency, a packet's serialisation), and the
// current time never goes back. Events pushed with the same delay therefore
// arrive already sorted, so each delay gets a FIFO lane and a pop takes the
// smallest (time, seq) among the lane heads, kept in order in a short list.
// That replaces a binary heap of ~10^5 events (a cache miss per
// level) with a few sequential FIFOs. Events that do not fit a lane (no delay
// given, too many distinct delays, or an out-of-order push) go to a heap; the
// order of pops is the same either way.
#include <cstdint>
#include <queue>
#include <vector>

#include "models/core/time.h"
#include "models/ici/ring_fifo.h"

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
  /// An event at absolute time t.
  void push(Time t, std::uint32_t kind, std::uint32_t a, std::uint32_t b = 0, std::uint32_t c = 0) {
    to_heap(Event{t, m_seq++, kind, a, b, c});
  }
  /// An event `delay` after `now`. Callers whose `now` never goes back get
  /// the FIFO lane of the delay; anything else still runs in order.
  // Inlined: called a few times per packet-hop, and a call costs about as
  // much as the work.
  [[gnu::always_inline]] void push_after(Time now, Time delay, std::uint32_t kind, std::uint32_t a,
                                         std::uint32_t b = 0, std::uint32_t c = 0) {
    const Event e{now + delay, m_seq++, kind, a, b, c};
    const std::uint32_t s = lane_for(delay, e.time, kind);
    if (s == kHeapSlot) {
      to_heap(e);
      return;
    }
    RingFifo<Event>& q = m_fifo[s];
    if (q.empty()) {
      set_head(s, e);
      insert(s);
    }
    q.push_back(e);
    // A lane's ring is far larger than the cache, so the slots ahead of its
    // tail were last used long ago: claim them before the writes stall.
    __builtin_prefetch(q.slot(q.size() + kAhead), 1);
    ++m_size;
  }
  bool empty() const { return m_size == 0; }
  Time next_time() const { return m_size == 0 ? kNever : m_head_time[m_order[0]]; }
  [[gnu::always_inline]] Event pop() {
    const std::uint32_t s = m_order[0];
    Event e;
    if (s == kHeapSlot) {
      e = m_heap.top();
      m_heap.pop();
      if (m_heap.empty()) {
        remove_first();
      } else {
        set_head(s, m_heap.top());
        sink_first();
      }
    } else {
      RingFifo<Event>& q = m_fifo[s];
      e = q.front();
      q.pop_front();
      __builtin_prefetch(q.slot(kAhead));  // written long ago, no longer cached
      if (q.empty()) {
        remove_first();
      } else {
        set_head(s, q.front());
        sink_first();
      }
    }
    --m_size;
    m_last = s;
    return e;
  }
  std::size_t size() const { return m_size; }
  /// The event k places behind the head of the lane of the last pop, if any:
  /// it runs soon, so its data is worth loading into cache now.
  const Event* soon(std::uint32_t k) const { return m_last == kHeapSlot ? nullptr : m_fifo[m_last].ahead(k); }

 private:
  // Slot 0 is the heap, slots 1..kMaxLanes the lanes.
  static constexpr std::uint32_t kHeapSlot = 0;
  static constexpr std::uint32_t kMaxLanes = 16;
  static constexpr std::uint32_t kSlots = kMaxLanes + 1;
  static constexpr std::uint32_t kHints = 8;
  static constexpr std::uint32_t kAhead = 16;  // events (eight cache lines) a lane's prefetches run ahead

  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.time != y.time ? x.time > y.time : x.seq > y.seq;
    }
  };

  void to_heap(const Event& e) {
    const bool was_empty = m_heap.empty();
    m_heap.push(e);
    if (was_empty) {
      set_head(kHeapSlot, e);
      insert(kHeapSlot);
    } else if (m_heap.top().seq == e.seq) {  // a new earliest heap event
      set_head(kHeapSlot, e);
      rise(kHeapSlot);
    }
    ++m_size;
  }
  void set_head(std::uint32_t s, const Event& e) {
    m_head_time[s] = e.time;
    m_head_seq[s] = e.seq;
  }
  bool earlier(std::uint32_t x, std::uint32_t y) const {
    return m_head_time[x] != m_head_time[y] ? m_head_time[x] < m_head_time[y] : m_head_seq[x] < m_head_seq[y];
  }
  // m_order[0..m_active) lists the non-empty slots, earliest head first, so
  // a pop needs no scan: the popped slot's new head moves back past the few
  // heads earlier than it.
  /// Slot s just got events; from the back, as a new head is mostly late.
  void insert(std::uint32_t s) {
    std::uint32_t i = m_active++;
    for (; i > 0 && earlier(s, m_order[i - 1]); --i) m_order[i] = m_order[i - 1];
    m_order[i] = s;
  }
  /// The head of slot s got earlier.
  void rise(std::uint32_t s) {
    std::uint32_t i = 0;
    while (m_order[i] != s) ++i;
    for (; i > 0 && earlier(s, m_order[i - 1]); --i) m_order[i] = m_order[i - 1];
    m_order[i] = s;
  }
  /// The head of the first slot got later.
  void sink_first() {
    const std::uint32_t s = m_order[0];
    std::uint32_t i = 0;
    for (; i + 1 < m_active && earlier(m_order[i + 1], s); ++i) m_order[i] = m_order[i + 1];
    m_order[i] = s;
  }
  /// The first slot got empty.
  void remove_first() {
    for (std::uint32_t i = 1; i < m_active; ++i) m_order[i - 1] = m_order[i];
    --m_active;
  }
  /// The lane slot keyed by `delay` if an event at t keeps it sorted, else
  /// the heap. The lane last used by the same kind of event is tried first.
  std::uint32_t lane_for(Time delay, Time t, std::uint32_t kind) {
    std::uint32_t& hint = m_hint[kind % kHints];
    std::uint32_t s = hint != kHeapSlot && m_delay[hint] == delay ? hint : find_lane(delay);
    if (s == kHeapSlot) return kHeapSlot;
    hint = s;
    const RingFifo<Event>& q = m_fifo[s];
    return q.empty() || q.back().time <= t ? s : kHeapSlot;
  }
  /// The lane keyed by `delay`, made if needed; the heap when all are busy.
  std::uint32_t find_lane(Time delay) {
    std::uint32_t spare = kHeapSlot;
    for (std::uint32_t s = 1; s <= m_lanes; ++s) {
      if (m_delay[s] == delay) return s;
      if (spare == kHeapSlot && m_fifo[s].empty()) spare = s;
    }
    if (m_lanes < kMaxLanes) {
      m_delay[++m_lanes] = delay;
      return m_lanes;
    }
    if (spare != kHeapSlot) m_delay[spare] = delay;  // re-key an idle lane
    return spare;
  }

  // Heads of the non-empty slots.
  Time m_head_time[kSlots] = {};
  std::uint64_t m_head_seq[kSlots] = {};
  std::uint32_t m_order[kSlots] = {};
  std::uint32_t m_active = 0;
  Time m_delay[kSlots] = {};
  std::uint32_t m_lanes = 0;  // lanes in use: slots 1..m_lanes
  std::uint32_t m_hint[kHints] = {};  // per event kind; kHeapSlot = none
  RingFifo<Event> m_fifo[kSlots];           // m_fifo[0] unused
  std::priority_queue<Event, std::vector<Event>, Later> m_heap;
  std::uint64_t m_seq = 0;
  std::size_t m_size = 0;
  std::uint32_t m_last = kHeapSlot;      // slot of the last pop
};

}  // namespace mxc::ici
