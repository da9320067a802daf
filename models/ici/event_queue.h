#pragma once
// A deterministic event queue: events run in (time, insertion order), never
// by pointer value, so a run replays bit for bit.
//
// Why lanes: a fabric schedules most events a fixed delay after the current
// time (router latency, link latency, a packet's serialisation), and the
// current time never goes back. Events pushed with the same delay therefore
// arrive already sorted, so each delay gets a FIFO lane and a pop takes the
// smallest (time, seq) among the lane heads, kept side by side in two small
// arrays. That replaces a binary heap of ~10^5 events (a cache miss per
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
  EventQueue() {
    for (std::uint32_t s = 0; s < kSlots; ++s) clear_head(s);
  }
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
    if (q.empty()) set_head(s, e);
    q.push_back(e);
    // A lane's ring is far larger than the cache, so the slots ahead of its
    // tail were last used long ago: claim them before the writes stall.
    __builtin_prefetch(q.slot(q.size() + kAhead), 1);
    ++m_size;
  }
  bool empty() const { return m_size == 0; }
  Time next_time() const { return m_size == 0 ? kNever : static_cast<Time>(m_head_key[best()] >> 64); }
  [[gnu::always_inline]] Event pop() {
    const std::uint32_t s = best();
    Event e;
    if (s == kHeapSlot) {
      e = m_heap.top();
      m_heap.pop();
      if (m_heap.empty()) clear_head(s);
      else set_head(s, m_heap.top());
    } else {
      RingFifo<Event>& q = m_fifo[s];
      e = q.front();
      q.pop_front();
      __builtin_prefetch(q.slot(kAhead));  // written long ago, no longer cached
      if (q.empty()) clear_head(s);
      else set_head(s, q.front());
    }
    --m_size;
    m_best = kUnknown;
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
  static constexpr std::uint32_t kUnknown = 0xffffffffu;
  static constexpr std::uint32_t kHints = 8;
  static constexpr std::uint32_t kAhead = 16;  // events (eight cache lines) a lane's prefetches run ahead
  // (time, seq) in one integer: comparing two heads is one compare.
  using Key = unsigned __int128;
  static Key key(const Event& e) { return static_cast<Key>(e.time) << 64 | e.seq; }
  static constexpr Key kEmpty = ~Key{0};

  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.time != y.time ? x.time > y.time : x.seq > y.seq;
    }
  };

  void to_heap(const Event& e) {
    m_heap.push(e);
    set_head(kHeapSlot, m_heap.top());
    ++m_size;
  }
  void set_head(std::uint32_t s, const Event& e) {
    m_head_key[s] = key(e);
    // A new earliest event is the head of its slot (slots are sorted).
    if (m_best != kUnknown && m_head_key[s] < m_head_key[m_best]) m_best = s;
    else if (m_size == 0) m_best = s;
  }
  void clear_head(std::uint32_t s) { m_head_key[s] = kEmpty; }
  /// The slot with the earliest head (needs m_size > 0).
  std::uint32_t best() const {
    if (m_best != kUnknown) return m_best;
    std::uint32_t b = kHeapSlot;
    Key k = m_head_key[kHeapSlot];
    for (std::uint32_t s = 1; s <= m_lanes; ++s) {
      const bool less = m_head_key[s] < k;
      b = less ? s : b;
      k = less ? m_head_key[s] : k;
    }
    m_best = b;
    return b;
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

  // Heads of all slots side by side: best() scans one small array.
  Key m_head_key[kSlots];
  Time m_delay[kSlots] = {};
  std::uint32_t m_lanes = 0;  // lanes in use: slots 1..m_lanes
  std::uint32_t m_hint[kHints] = {};  // per event kind; kHeapSlot = none
  RingFifo<Event> m_fifo[kSlots];           // m_fifo[0] unused
  std::priority_queue<Event, std::vector<Event>, Later> m_heap;
  std::uint64_t m_seq = 0;
  std::size_t m_size = 0;
  std::uint32_t m_last = kHeapSlot;      // slot of the last pop
  mutable std::uint32_t m_best = kUnknown;  // cached result of best()
};

}  // namespace mxc::ici
