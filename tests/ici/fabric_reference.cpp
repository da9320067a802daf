#include "tests/ici/fabric_reference.h"

#include <algorithm>
#include <stdexcept>

namespace mxc::ici::test {

FabricReference::FabricReference(const IciConfig& cfg) : m_cfg(cfg) {
  m_cfg.validate();
  const std::uint32_t dims = static_cast<std::uint32_t>(m_cfg.dims.size());
  for (std::uint32_t d = 0; d < dims; ++d) {
    m_stride.push_back(m_chips);
    m_chips *= m_cfg.dims[d];
    m_wrap.push_back(m_cfg.wrap.size() == 1 ? m_cfg.wrap[0] : m_cfg.wrap[d]);
  }
  m_ports = 2 * dims;
  m_vcs = 2 * m_cfg.vcs_per_class;
  m_out.resize(std::size_t{m_chips} * m_ports);
  for (std::uint32_t c = 0; c < m_chips; ++c)
    for (std::uint32_t p = 0; p < m_ports; ++p) {
      Out& o = m_out[c * m_ports + p];
      o.to = neighbour(c, p);
      o.credits.assign(m_vcs, static_cast<std::int64_t>(m_cfg.buffer_bytes_per_vc / m_cfg.flit_bytes));
      o.transit.resize(m_vcs);
      o.local.resize(m_vcs);
    }
  m_waiting.assign(m_chips, 0);
}

std::uint32_t FabricReference::neighbour(std::uint32_t chip, std::uint32_t port) const {
  const std::uint32_t d = port / 2, k = m_cfg.dims[d], c = coord(chip, d);
  const bool minus = port % 2 == 1;
  if (k == 1) return 0xffffffffu;
  std::uint32_t n;
  if (!minus) {
    if (c + 1 == k && !m_wrap[d]) return 0xffffffffu;
    n = (c + 1) % k;
  } else {
    if (c == 0 && !m_wrap[d]) return 0xffffffffu;
    n = (c + k - 1) % k;
  }
  return chip - c * m_stride[d] + n * m_stride[d];
}

FabricReference::Step FabricReference::next_step(std::uint32_t cur, std::uint32_t dst) const {
  for (std::uint32_t d = 0; d < m_cfg.dims.size(); ++d) {
    const std::uint32_t c = coord(cur, d), t = coord(dst, d), k = m_cfg.dims[d];
    if (c == t) continue;
    bool plus;
    if (m_wrap[d]) {
      const std::uint32_t up = (t + k - c) % k;  // hops going plus
      plus = up <= k - up;                       // shorter way, plus on a tie
    } else {
      plus = t > c;
    }
    const bool wrap = m_wrap[d] && (plus ? c == k - 1 : c == 0);
    return {2 * d + (plus ? 0u : 1u), wrap};
  }
  throw std::logic_error("next_step: already at the destination");
}

std::uint32_t FabricReference::hops(std::uint32_t src, std::uint32_t dst) const {
  std::uint32_t h = 0;
  for (std::uint32_t d = 0; d < m_cfg.dims.size(); ++d) {
    const std::uint32_t c = coord(src, d), t = coord(dst, d), k = m_cfg.dims[d];
    const std::uint32_t up = (t + k - c) % k;
    h += m_wrap[d] ? std::min(up, k - up) : (t > c ? t - c : c - t);
  }
  return h;
}

// The multiplicative hash of docs/ici.md, "In order".
std::uint32_t FabricReference::lane(std::uint32_t src, std::uint32_t dst) const {
  const std::uint64_t pair = (std::uint64_t{src} << 32) | dst;
  return static_cast<std::uint32_t>(((pair * 0x9E3779B97F4A7C15ull) >> 32) % m_cfg.vcs_per_class);
}

std::pair<std::uint32_t, std::uint32_t> FabricReference::choose(std::uint32_t cur, std::uint32_t dst,
                                                                std::uint32_t src, std::uint32_t& dim,
                                                                std::uint32_t& cls) const {
  const Step s = next_step(cur, dst);
  const std::uint32_t d = s.port / 2;
  if (d != dim) cls = 0;  // a new dimension starts in class 0
  dim = d;
  if (s.wrap && m_cfg.datelines) cls = 1;  // on and after the dateline (without datelines all in class 0)
  const std::uint32_t vc = cls * m_cfg.vcs_per_class + lane(src, dst);
  return {cur * m_ports + s.port, vc};
}

std::uint64_t FabricReference::payload_of(const Msg& m, std::uint64_t index) const {
  if (index + 1 < m.segs) return m_cfg.max_payload_bytes;
  return m.pkt.bytes - (m.segs - 1) * std::uint64_t{m_cfg.max_payload_bytes};
}

bool FabricReference::inject(const IciPacket& pkt, Time now) {
  if (pkt.src >= m_chips || pkt.dst >= m_chips) throw std::invalid_argument("reference: chip out of range");
  if (now < m_now) throw std::logic_error("reference: time went back");
  run_until(now);
  if (m_waiting[pkt.src] >= m_cfg.injection_queue) return false;
  Msg m;
  m.pkt = pkt;
  m.pkt.inject = now;
  m.segs = m_cfg.segments(pkt.bytes);
  m_msgs.push_back(m);
  ++m_waiting[pkt.src];
  ++m_in_flight;
  // A message to its own chip is delivered at once; any other is routed a router latency later.
  const Time ready = pkt.src == pkt.dst ? now : now + m_cfg.router_latency_ps;
  schedule(ready, {Ev::kLocalReady, static_cast<std::uint32_t>(m_msgs.size() - 1)});
  return true;
}

void FabricReference::run_until(Time t) {
  while (!m_events.empty() && m_events.begin()->first <= t) run_time(m_events.begin()->first);
  m_now = std::max(m_now, t);
}

Time FabricReference::advance_until_space(Time limit) {
  m_space_made = false;
  while (!m_events.empty() && m_events.begin()->first <= limit) {
    run_time(m_events.begin()->first);
    if (m_space_made) return m_now;
  }
  m_now = std::max(m_now, limit);
  return limit;
}

void FabricReference::run_time(Time t) {
  m_now = t;
  for (;;) {
    // Phase 1: every event due now, in the order scheduled (handling may add more at now).
    while (!m_events.empty() && m_events.begin()->first == t) {
      std::vector<Event> batch = std::move(m_events.begin()->second);
      m_events.erase(m_events.begin());
      for (const Event& e : batch) handle(e, t);
    }
    if (m_dirty.empty()) return;
    // Phase 2: each idle link with something waiting sends one packet.
    std::vector<std::uint32_t> links;
    links.swap(m_dirty);
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    for (std::uint32_t l : links) arbitrate(l, t);
  }
}

void FabricReference::handle(const Event& e, Time t) {
  switch (e.kind) {
    case Ev::kLocalReady: {
      Msg& m = m_msgs[e.a];
      if (m.pkt.src == m.pkt.dst) {
        if (m_waiting[m.pkt.src]-- == m_cfg.injection_queue) m_space_made = true;
        --m_in_flight;
        m.pkt.deliver = t;
        m_delivered.push_back(m.pkt);
        return;
      }
      std::uint32_t dim = kNoDim, cls = 0;
      const auto [link, vc] = choose(m.pkt.src, m.pkt.dst, m.pkt.src, dim, cls);
      m_out[link].local[vc].push_back(e.a);
      m_dirty.push_back(link);
      return;
    }
    case Ev::kRoute: {
      Seg& s = m_segs[e.a];
      const Msg& m = m_msgs[s.msg];
      const auto [link, vc] = choose(s.at, m.pkt.dst, m.pkt.src, s.dim, s.cls);
      m_out[link].transit[vc].push_back(e.a);
      m_dirty.push_back(link);
      return;
    }
    case Ev::kTail: {  // the tail reached the destination: ejected, its buffer freed
      const Seg& s = m_segs[e.a];
      schedule(t + m_cfg.link_latency_ps, {Ev::kCredit, s.in_link, s.in_vc, flits_of(s.payload)});
      Msg& m = m_msgs[s.msg];
      if (++m.done == m.segs) {
        --m_in_flight;
        m.pkt.deliver = t;
        m_delivered.push_back(m.pkt);
      }
      return;
    }
    case Ev::kCredit:
      m_out[e.a].credits[e.b] += e.n;
      m_dirty.push_back(e.a);
      return;
    case Ev::kFree:
      m_dirty.push_back(e.a);
      return;
  }
}

void FabricReference::arbitrate(std::uint32_t link, Time t) {
  Out& o = m_out[link];
  if (o.busy_until > t) return;  // its kFree will look again
  const std::uint32_t slots = 2 * m_vcs;
  for (std::uint32_t i = 0; i < slots; ++i) {
    const std::uint32_t slot = (o.rr + i) % slots, vc = slot / 2;
    std::int64_t need;
    if (slot % 2 == 0) {
      if (o.transit[vc].empty()) continue;
      need = flits_of(m_segs[o.transit[vc].front()].payload);
    } else {
      if (o.local[vc].empty()) continue;
      const Msg& m = m_msgs[o.local[vc].front()];
      need = flits_of(payload_of(m, m.sent));
    }
    if (o.credits[vc] < need) continue;
    o.rr = (slot + 1) % slots;
    if (slot % 2 == 0)
      send_transit(link, vc, t);
    else
      send_local(link, vc, t);
    return;
  }
}

void FabricReference::send_transit(std::uint32_t link, std::uint32_t vc, Time t) {
  Out& o = m_out[link];
  const std::uint32_t si = o.transit[vc].front();
  o.transit[vc].erase(o.transit[vc].begin());
  const Seg& s = m_segs[si];
  // The tail leaves this chip's input buffer when the packet has been sent; the credit takes a link latency.
  const std::uint32_t flits = flits_of(s.payload);
  const Time tail_out = t + m_cfg.serialise_ps(s.payload + m_cfg.header_bytes);
  schedule(tail_out + m_cfg.link_latency_ps, {Ev::kCredit, s.in_link, s.in_vc, flits});
  start_on_link(link, vc, si, t);
}

void FabricReference::send_local(std::uint32_t link, std::uint32_t vc, Time t) {
  Out& o = m_out[link];
  const std::uint32_t mi = o.local[vc].front();
  Msg& m = m_msgs[mi];
  Seg s;
  s.msg = mi;
  s.payload = payload_of(m, m.sent);
  s.at = m.pkt.src;
  choose(m.pkt.src, m.pkt.dst, m.pkt.src, s.dim, s.cls);  // the first hop's dimension and class
  m_segs.push_back(s);
  if (++m.sent == m.segs) {  // the last wire packet has started: the message leaves the injection queue
    o.local[vc].erase(o.local[vc].begin());
    if (m_waiting[m.pkt.src]-- == m_cfg.injection_queue) m_space_made = true;
  }
  start_on_link(link, vc, static_cast<std::uint32_t>(m_segs.size() - 1), t);
}

void FabricReference::start_on_link(std::uint32_t link, std::uint32_t vc, std::uint32_t si, Time t) {
  Out& o = m_out[link];
  Seg& s = m_segs[si];
  o.credits[vc] -= flits_of(s.payload);
  const Time ser = m_cfg.serialise_ps(s.payload + m_cfg.header_bytes);
  o.busy_until = t + ser;
  schedule(t + ser, {Ev::kFree, link});
  s.at = o.to;
  s.in_link = link;
  s.in_vc = vc;
  if (s.at == m_msgs[s.msg].pkt.dst)
    schedule(t + m_cfg.link_latency_ps + ser, {Ev::kTail, si});  // ejected when its tail arrives
  else
    schedule(t + m_cfg.link_latency_ps + m_cfg.router_latency_ps, {Ev::kRoute, si});
}

}  // namespace mxc::ici::test
