#include "models/ici/torus_fabric.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <stdexcept>

namespace mxc::ici {

namespace {
constexpr std::uint32_t kNoLink = 0xffffffffu;
void mark_waiting(Link& l, std::uint32_t slot) {
  if (slot < 64) l.waiting |= std::uint64_t{1} << slot;
}
void clear_waiting(Link& l, std::uint32_t slot) {
  if (slot < 64) l.waiting &= ~(std::uint64_t{1} << slot);
}
constexpr std::size_t kPrefetchAhead = 8;  // events; a few hundred ns of work ahead of the miss
/// Prefetches all of *p: an object may straddle two cache lines.
template <class T>
[[gnu::always_inline]] inline void prefetch_object(const T* p) {
  __builtin_prefetch(p);
  __builtin_prefetch(reinterpret_cast<const char*>(p) + sizeof(T) - 1);
}
}

TorusFabric::TorusFabric(const IciConfig& cfg)
    : m_cfg(validated(cfg)), m_topo(cfg.dims, cfg.wrap), m_router(m_topo, cfg.datelines) {
  const std::uint32_t ports = m_topo.num_ports();
  const std::int64_t credits = m_cfg.buffer_bytes_per_vc / m_cfg.flit_bytes;
  m_links.resize(static_cast<std::size_t>(m_topo.num_chips()) * ports);
  for (std::uint32_t chip = 0; chip < m_topo.num_chips(); ++chip) {
    for (std::uint32_t p = 0; p < ports; ++p) {
      Link& l = m_links[chip * ports + p];
      l.to = m_topo.neighbour(chip, p);
      l.dim = p / 2;
      if (l.to == kNoChip) continue;
      l.wrap = m_topo.is_wrap_link(chip, p);
      l.vcs.resize(num_vcs());
      for (auto& vc : l.vcs) vc.credits = credits;
    }
  }
  m_queued_msgs.assign(m_topo.num_chips(), 0);
  m_woken.resize(m_links.size());  // a link is in it at most once
  m_full_ser = m_cfg.serialise_ps(m_cfg.max_payload_bytes + m_cfg.header_bytes);
  m_full_flits = m_cfg.flits(m_cfg.max_payload_bytes + m_cfg.header_bytes);
}

bool TorusFabric::can_inject(const IciPacket& pkt) const {
  return pkt.src < m_topo.num_chips() && m_queued_msgs[pkt.src] < m_cfg.injection_queue;
}

bool TorusFabric::inject(const IciPacket& pkt, Time now) {
  if (pkt.src >= m_topo.num_chips() || pkt.dst >= m_topo.num_chips())
    throw std::out_of_range(m_cfg.name + ": packet " + std::to_string(pkt.id) + " from chip " +
                            std::to_string(pkt.src) + " to chip " + std::to_string(pkt.dst) + ", fabric has " +
                            std::to_string(m_topo.num_chips()) + " chips");
  if (now < m_now)
    throw std::logic_error(m_cfg.name + ": inject at " + std::to_string(now) + " ps, before the last event at " +
                           std::to_string(m_now) + " ps");
  // The events due by `now` run first, unless this comes from one of them (a
  // delivery that injects): the message finds the injection queue, links and
  // credits as they are at `now`, whether its sender or the fabric ran first
  // at a tie. Their deliveries wait for the fabric's own step at their time
  // (next_event_time() reports it), so a receiver sees them when it would
  // have.
  if (!m_running && now >= m_clear_before) run_due(now);
  if (!can_inject(pkt)) return false;
  const std::uint32_t mi = alloc_message();
  Message& m = m_msgs[mi];
  m.pkt = pkt;
  m.pkt.inject = now;
  m.segs_total = m_cfg.segments(pkt.bytes);
  m.segs_sent = m.segs_done = 0;
  // Sizes of the last wire packet, once here rather than on every send attempt.
  m.last_bytes = static_cast<std::uint32_t>(pkt.bytes - (m.segs_total - 1) * m_cfg.max_payload_bytes);
  m.last_flits = m_cfg.flits(m.last_bytes + m_cfg.header_bytes);
  m.last_ser = m.last_bytes == m_cfg.max_payload_bytes ? m_full_ser : m_cfg.serialise_ps(m.last_bytes + m_cfg.header_bytes);
  // The lane within a dateline class depends on the pair only, so a pair's
  // packets share every queue and stay in order. A multiplicative hash of the
  // pair spreads pairs over the lanes: (src + dst) has one parity for every
  // pair of a shift or tornado pattern, which left one lane of two idle.
  const std::uint64_t pair = (std::uint64_t{pkt.src} << 32) | pkt.dst;
  m.lane = static_cast<std::uint8_t>(((pair * 0x9E3779B97F4A7C15ull) >> 32) % m_cfg.vcs_per_class);
  ++m_queued_msgs[pkt.src];
  ++m_in_flight;
  const Time route = pkt.src == pkt.dst ? 0 : m_cfg.router_latency_ps;
  m_events.push_after(now, route, kRoute, mi);
  m_clear_before = std::min(m_clear_before, now + route);  // a loopback's route is due at once
  return true;
}

void TorusFabric::run_due(Time now) {
  if (m_events.next_time() <= now) {
    const FlagScope running(m_running), deferring(m_defer);
    run_through(now);
  }
  cleared_through(now);
}

void TorusFabric::hand_over(IciPacket&& pkt) {
  if (m_defer) m_deferred.push_back(std::move(pkt));
  else deliver(pkt);
}

void TorusFabric::deliver_deferred(Time now) {
  if (m_deferred.empty()) return;
  // In the order the events made them, all at or before `now`; taken out
  // first, so that a delivery function that throws leaves none to be
  // delivered twice.
  std::size_t n = 0;
  while (n < m_deferred.size() && m_deferred[n].deliver <= now) ++n;
  std::vector<IciPacket> due(std::make_move_iterator(m_deferred.begin()),
                             std::make_move_iterator(m_deferred.begin() + static_cast<std::ptrdiff_t>(n)));
  m_deferred.erase(m_deferred.begin(), m_deferred.begin() + static_cast<std::ptrdiff_t>(n));
  for (const IciPacket& p : due) deliver(p);
}

Time TorusFabric::next_event_time() const {
  return m_deferred.empty() ? m_events.next_time() : std::min(m_events.next_time(), m_deferred.front().deliver);
}

void TorusFabric::advance_to(Time now) {
  const FlagScope running(m_running);
  deliver_deferred(now);
  run_through(now);
  if (now > m_now) m_now = now;
  cleared_through(now);
}

Time TorusFabric::advance_until_space(Time limit) {
  const FlagScope running(m_running);
  deliver_deferred(limit);
  m_space_freed = false;
  while (!m_events.empty() && m_events.next_time() <= limit) {
    if (m_space_freed && m_events.next_time() > m_now) {  // that time is complete
      cleared_through(m_now);
      return m_now;
    }
    run_picosecond();
  }
  cleared_through(limit);
  if (m_space_freed) return m_now;
  if (limit > m_now) m_now = limit;
  return limit;
}

void TorusFabric::dequeued(std::uint32_t chip) {
  if (m_queued_msgs[chip]-- == m_cfg.injection_queue) m_space_freed = true;
}

inline void TorusFabric::prefetch(const Event& e) const {
  switch (e.kind) {
    case kArrive: prefetch_object(&m_segs[e.a]); break;
    case kEject:
      prefetch_object(&m_segs[e.a]);
      prefetch_object(&m_msgs[e.b]);
      break;
    case kRoute: __builtin_prefetch(&m_msgs[e.a]); break;  // its first cache line is all routing needs
    default: __builtin_prefetch(&m_links[e.a]); break;
  }
}

void TorusFabric::run(const Event& e) {
  m_now = e.time;
  // Segments and messages of ~10^5 packets in flight do not stay in cache:
  // start loading what an event a few places down this lane will touch.
  if (const Event* soon = m_events.soon(kPrefetchAhead)) prefetch(*soon);
  switch (e.kind) {
    case kRoute: on_route(e.a, e.time); break;
    case kArrive: on_arrive(e.a); break;
    case kEject: on_eject(e.a, e.time); break;
    case kCredit:
      m_links[e.a].vcs[e.b].credits += e.c;
      wake(e.a);
      break;
    case kLinkFree:
      m_links[e.a].wake_pending = false;
      wake(e.a);
      break;
  }
}

void TorusFabric::run_picosecond() {
  const Time t = m_events.next_time();
  do run(m_events.pop());
  while (m_events.next_time() == t);
  // After its last event: the links woken choose among all that is ready now.
  if (m_num_woken > 0) arbitrate_woken(t);
}

void TorusFabric::run_through(Time now) {
  while (!m_events.empty() && m_events.next_time() <= now) run_picosecond();
}

inline void TorusFabric::wake(std::uint32_t li) {
  Link& l = m_links[li];
  if (l.woken || l.queued == 0) return;
  // Still sending, its link-free event queued: choosing at the end of the picosecond would do nothing.
  if (l.wake_pending && l.busy_until > m_now) return;
  // The last event of the picosecond and no other link waiting for its end: choose now, the same.
  if (m_num_woken == 0 && m_events.next_time() > m_now) {
    try_send(li, m_now);
    return;
  }
  l.woken = true;
  // Often in order: the events that woke them were made by the last picosecond's sends, in link order.
  if (m_num_woken > 0 && li < m_woken[m_num_woken - 1]) m_woken_unsorted = true;
  m_woken[m_num_woken++] = li;
}

void TorusFabric::arbitrate_woken(Time now) {
  // In link order, so that packets sent at once reach a shared queue in an order that does not
  // depend on which event came first.
  if (m_woken_unsorted) {
    std::sort(m_woken.begin(), m_woken.begin() + static_cast<std::ptrdiff_t>(m_num_woken));
    m_woken_unsorted = false;
  }
  for (std::size_t i = 0; i < m_num_woken; ++i) {
    m_links[m_woken[i]].woken = false;
    try_send(m_woken[i], now);
  }
  m_num_woken = 0;
}

void TorusFabric::on_route(std::uint32_t mi, Time now) {
  Message& m = m_msgs[mi];
  if (m.pkt.src == m.pkt.dst) {  // loopback: never touches a link
    dequeued(m.pkt.src);
    --m_in_flight;
    ++s_messages;
    s_bytes += m.pkt.bytes;
    IciPacket pkt = std::move(m.pkt);
    pkt.deliver = now;
    m_free_msgs.push_back(mi);
    hand_over(std::move(pkt));
    return;
  }
  RouteState st;
  const Hop h = m_router.next_hop(m.pkt.src, m.pkt.dst, st);
  const std::uint32_t li = m.pkt.src * m_topo.num_ports() + h.port;
  const std::uint32_t vc = h.cls * m_cfg.vcs_per_class + m.lane;
  m.first_link = li;
  m.first_vc = static_cast<std::uint8_t>(vc);
  m.first_state = st;
  m_links[li].vcs[vc].inject.push_back(mi);
  mark_waiting(m_links[li], 2 * vc + 1);
  ++m_links[li].queued;
  wake(li);
}

void TorusFabric::on_arrive(std::uint32_t si) {
  Segment& s = m_segs[si];
  const Hop h = m_router.next_hop(s.chip, s.dst, s.route);
  const std::uint32_t li = s.chip * m_topo.num_ports() + h.port;
  const std::uint32_t vc = h.cls * m_cfg.vcs_per_class + s.lane;
  m_links[li].vcs[vc].transit.push_back(si);
  mark_waiting(m_links[li], 2 * vc);
  ++m_links[li].queued;
  wake(li);
}

void TorusFabric::on_eject(std::uint32_t si, Time now) {
  const Segment s = m_segs[si];
  m_free_segs.push_back(si);
  m_events.push_after(now, m_cfg.link_latency_ps, kCredit, s.in_link, s.in_vc, s.flits);
  Message& m = m_msgs[s.msg];
  if (++m.segs_done < m.segs_total) return;
  --m_in_flight;
  ++s_messages;
  s_bytes += m.pkt.bytes;
  IciPacket pkt = std::move(m.pkt);
  pkt.deliver = now;
  m_free_msgs.push_back(s.msg);
  hand_over(std::move(pkt));  // may inject: nothing above holds a reference
}

void TorusFabric::try_send(std::uint32_t li, Time now) {
  Link& l = m_links[li];
  if (l.queued == 0) return;
  if (l.busy_until > now) {
    if (!l.wake_pending) {
      l.wake_pending = true;
      m_events.push(l.busy_until, kLinkFree, li);
    }
    return;
  }
  // After a send the link is free again after its serialisation time, which is 0 for a packet of
  // no bytes (no header, no payload): the next one goes at once, not at the next credit.
  if (arbitrate(li, now) && l.queued > 0 && !l.wake_pending) {
    l.wake_pending = true;
    m_events.push_after(now, l.busy_until - now, kLinkFree, li);
  }
}

bool TorusFabric::arbitrate(std::uint32_t li, Time now) {
  // Round robin over (VC, transit|inject) slots from l.rr. With up to 64
  // slots the bit mask of non-empty queues visits only those, in the same order.
  const Link& l = m_links[li];
  const std::uint32_t slots = 2 * num_vcs();
  if (slots <= 64) {
    const std::uint32_t start = l.rr >= slots ? l.rr - slots : l.rr;
    const std::uint64_t from_start = ~std::uint64_t{0} << start;
    const std::uint64_t passes[2] = {l.waiting & from_start, l.waiting & ~from_start};
    for (std::uint64_t bits : passes)
      for (; bits != 0; bits &= bits - 1)
        if (try_slot(li, static_cast<std::uint32_t>(std::countr_zero(bits)), now)) return true;
  } else {
    for (std::uint32_t i = 0; i < slots; ++i) {
      std::uint32_t slot = l.rr + i;  // rr <= slots, so one subtraction wraps it
      if (slot >= slots) slot -= slots;
      if (try_slot(li, slot, now)) return true;
    }
  }
  return false;
}

bool TorusFabric::try_slot(std::uint32_t li, std::uint32_t slot, Time now) {
  Link& l = m_links[li];
  const std::uint32_t vc = slot >> 1;
  LinkVc& q = l.vcs[vc];
  std::uint32_t si;
  if ((slot & 1) == 0) {
    if (q.transit.empty()) return false;
    si = q.transit.front();
    if (q.credits < m_segs[si].flits) return false;
    q.transit.pop_front();
    if (q.transit.empty()) clear_waiting(l, slot);
    --l.queued;
  } else {
    if (q.inject.empty()) return false;
    const std::uint32_t mi = q.inject.front();
    Message& m = m_msgs[mi];
    const bool last_seg = m.segs_sent + 1 == m.segs_total;
    const std::uint32_t flits = last_seg ? m.last_flits : m_full_flits;
    if (q.credits < flits) return false;
    const std::uint32_t bytes = last_seg ? m.last_bytes : m_cfg.max_payload_bytes;
    si = alloc_segment();
    Segment& s = m_segs[si];
    s.msg = mi;
    s.chip = m.pkt.src;
    s.dst = m.pkt.dst;
    s.lane = m.lane;
    s.in_link = kNoLink;
    s.in_vc = 0;
    s.flits = flits;
    s.wire = bytes + m_cfg.header_bytes;
    s.ser = last_seg ? m.last_ser : m_full_ser;
    s.route = m.first_state;
    if (++m.segs_sent == m.segs_total) {
      q.inject.pop_front();
      if (q.inject.empty()) clear_waiting(l, slot);
      --l.queued;
      dequeued(m.pkt.src);
    }
  }
  l.rr = slot + 1;
  send(li, vc, si, now);
  return true;
}

void TorusFabric::send(std::uint32_t li, std::uint32_t vc, std::uint32_t si, Time now) {
  Link& l = m_links[li];
  Segment& s = m_segs[si];
  l.vcs[vc].credits -= s.flits;
  l.busy_until = now + s.ser;
  ++l.s_packets;
  l.s_busy_ps += s.ser;
  l.s_wire_bytes += s.wire;
  ++s_packet_hops;
  s_flit_hops += s.flits;
  // The buffer this packet leaves is free once its tail has gone; the credit
  // then takes one link latency to get back upstream.
  if (s.in_link != kNoLink)
    m_events.push_after(now, s.ser + m_cfg.link_latency_ps, kCredit, s.in_link, s.in_vc, s.flits);
  s.in_link = li;
  s.in_vc = static_cast<std::uint8_t>(vc);
  s.chip = l.to;
  if (l.to == s.dst)
    m_events.push_after(now, m_cfg.link_latency_ps + s.ser, kEject, si, s.msg);
  else
    m_events.push_after(now, m_cfg.link_latency_ps + m_cfg.router_latency_ps, kArrive, si);
}

std::uint32_t TorusFabric::alloc_segment() {
  if (!m_free_segs.empty()) {
    const std::uint32_t i = m_free_segs.back();
    m_free_segs.pop_back();
    return i;
  }
  m_segs.emplace_back();
  return static_cast<std::uint32_t>(m_segs.size() - 1);
}

std::uint32_t TorusFabric::alloc_message() {
  if (!m_free_msgs.empty()) {
    const std::uint32_t i = m_free_msgs.back();
    m_free_msgs.pop_back();
    return i;
  }
  m_msgs.emplace_back();
  return static_cast<std::uint32_t>(m_msgs.size() - 1);
}

}  // namespace mxc::ici
