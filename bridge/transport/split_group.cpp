#include "bridge/transport/split_group.h"

#include <algorithm>
#include <stdexcept>

#include "bridge/transport/channel.h"

namespace mxc::transport {

namespace {

Time saturating_add(Time a, Time b) { return a > kNever - b ? kNever : a + b; }

// "key=value" lines, in order.
std::vector<std::pair<std::string, std::string>> parse_terms(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    const std::size_t eq = line.find('=');
    out.emplace_back(line.substr(0, eq), eq == std::string::npos ? "" : line.substr(eq + 1));
    at = end + 1;
  }
  return out;
}

// A peer's text in a message: bounded, printable.
std::string shown(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 64)) out += c >= 0x20 && c < 0x7f ? c : '?';
  return (out.empty() ? "(none)" : out) + (s.size() > 64 ? "..." : "");
}

// "m 32 here, 16 in the run; workload mlp here, gemm in the run" (empty: they agree).
std::string terms_differ(const std::string& mine, const std::string& run) {
  if (mine == run) return "";
  const auto a = parse_terms(mine), b = parse_terms(run);
  const auto value = [](const auto& terms, const std::string& key) -> const std::string* {
    for (const auto& [k, v] : terms)
      if (k == key) return &v;
    return nullptr;
  };
  std::vector<std::string> keys;
  for (const auto* terms : {&a, &b})
    for (const auto& [k, v] : *terms)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  std::string out;
  std::size_t listed = 0, more = 0;
  for (const std::string& k : keys) {
    const std::string *x = value(a, k), *y = value(b, k);
    if (x && y && *x == *y) continue;
    if (listed == 8) {
      ++more;
      continue;
    }
    ++listed;
    out += (out.empty() ? "" : "; ") + shown(k) + " " + (x ? shown(*x) : "(not given)") + " here, " +
           (y ? shown(*y) : "(not given)") + " in the run";
  }
  if (more) out += "; and " + std::to_string(more) + " more";
  return out.empty() ? "the terms are in another order" : out;
}

}  // namespace

SplitGroup::SplitGroup(const ServedSystem& sys, std::chrono::milliseconds join_timeout)
    : m_sys(sys), m_join_timeout(join_timeout), m_fabric(make_served_fabric(sys)), m_lookahead(fabric_lookahead(sys)) {
  if (!m_fabric) throw std::invalid_argument("a split run needs a system of two or more chips");
  m_owner.assign(sys.chips, -1);
  m_pending.resize(sys.chips);
  m_fabric->set_delivery([this](const IciPacket& p) { m_step_deliveries.push_back(PacketMsg{p.deliver, false, p}); });
}

SplitGroup::~SplitGroup() = default;

std::size_t SplitGroup::join(const std::vector<std::uint32_t>& chips, const std::string& terms) {
  std::lock_guard lk(m_mutex);
  if (chips.empty()) throw std::invalid_argument("a split run's client names the chips it runs");
  // Clients of one run must simulate one system: the config hash and the seed are checked at
  // the handshake, the rest here (the first client's terms are the run's).
  if (!m_members.empty())
    if (const std::string diff = terms_differ(terms, m_terms); !diff.empty())
      throw std::invalid_argument("this client's run differs from the run the client for " +
                                  chips_text(m_members.front()) + " started (" + diff +
                                  "): every client of a split run must give the same workload and system options");
  for (std::uint32_t c : chips) {
    if (c >= m_sys.chips)
      throw std::invalid_argument("chip " + std::to_string(c) + " asked for, but the served system has " +
                                  std::to_string(m_sys.chips) + " chips");
    if (m_owner[c] >= 0) throw std::invalid_argument("chip " + std::to_string(c) + " is already run by another client");
  }
  if (m_members.empty()) m_terms = terms;
  for (std::uint32_t c : chips) m_owner[c] = static_cast<std::int64_t>(m_members.size());
  m_members.push_back(Member{chips, {}, false, {}, {}, {}, {}, std::nullopt});
  return m_members.size() - 1;
}

bool SplitGroup::complete() const {
  return std::none_of(m_owner.begin(), m_owner.end(), [](std::int64_t o) { return o < 0; });
}

bool SplitGroup::failed() const {
  std::lock_guard lk(m_mutex);
  return !m_failed.empty();
}

std::uint32_t SplitGroup::fabric_chips() const { return m_fabric->num_chips(); }

std::string SplitGroup::chips_text(const Member& m) const {
  std::string s;
  for (std::uint32_t c : m.chips) s += (s.empty() ? "" : ",") + std::to_string(c);
  return "chip(s) " + s;
}

void SplitGroup::fail_locked(const std::string& why) {
  if (m_failed.empty()) m_failed = why;
  m_cv.notify_all();
}

void SplitGroup::post(std::size_t member, Time time, IciPacket pkt) {
  std::lock_guard lk(m_mutex);
  Member& me = m_members.at(member);
  const std::uint64_t chip = pkt.id / m_sys.tiles_per_chip;
  if (chip != pkt.src || std::find(me.chips.begin(), me.chips.end(), pkt.src) == me.chips.end())
    throw std::invalid_argument("PACKET from component " + std::to_string(pkt.id) + " of chip " +
                                std::to_string(pkt.src) + ", which this client does not run");
  if (pkt.dst >= m_sys.chips || pkt.dst == pkt.src)
    throw std::invalid_argument("PACKET from chip " + std::to_string(pkt.src) + " to chip " + std::to_string(pkt.dst));
  if (!me.posts.empty() && (time < me.posts.back().time ||
                            (time == me.posts.back().time && pkt.id < me.posts.back().pkt.id)))
    throw std::invalid_argument("PACKET at " + std::to_string(time) + " ps out of step order");
  // The fabric may have run past it: the packet would reach another client in its past.
  if (me.sealed && time <= *me.sealed)
    throw std::invalid_argument("PACKET at " + std::to_string(time) + " ps, but this client's WINDOW said every " +
                                "packet up to " + std::to_string(*me.sealed) + " ps was posted (a packet comes " +
                                "before the WINDOW that covers its time)");
  me.posts.push_back(Post{time, std::move(pkt)});
}

void SplitGroup::wait_round(Lock& lk, std::uint64_t round, const std::function<void()>& keepalive) {
  const auto start = std::chrono::steady_clock::now();
  while (m_round == round && m_failed.empty()) {
    if (m_cv.wait_for(lk, std::chrono::seconds(1)) != std::cv_status::timeout) continue;
    if (m_round != round) break;
    if (!complete() && std::chrono::steady_clock::now() - start > m_join_timeout) {
      std::string missing;
      for (std::uint32_t c = 0; c < m_sys.chips; ++c)
        if (m_owner[c] < 0) missing += (missing.empty() ? "" : ",") + std::to_string(c);
      fail_locked("no client for chip(s) " + missing + " joined the split run within " + seconds_text(m_join_timeout) +
                  " (start a client for them, mxcosim run --connect ADDR --chips " + missing +
                  ", or give the server more time to wait, mxcosim serve --timeout)");
      break;
    }
    // Tell the waiting client the server is alive (its own reply deadline runs meanwhile).
    lk.unlock();
    try {
      keepalive();
    } catch (...) {
      lk.lock();
      throw;
    }
    lk.lock();
  }
  if (m_round == round) throw std::runtime_error(m_failed);
}

WindowMsg SplitGroup::window(std::size_t member, const WindowMsg& mine, std::vector<PacketMsg>& deliveries,
                             const std::function<void()>& keepalive) {
  Lock lk(m_mutex);
  if (!m_failed.empty()) throw std::runtime_error(m_failed);
  Member& me = m_members.at(member);
  if (m_ended) throw std::invalid_argument("WINDOW after the end of the split run");
  // An unfinished client stops exactly at its grant; a finished one at or before it.
  if (mine.done ? mine.time > m_grant : mine.time != m_grant) {
    fail_locked("client for " + chips_text(me) + " sent a WINDOW at " + std::to_string(mine.time) +
                " ps, its grant is " + std::to_string(m_grant) + " ps");
    throw std::runtime_error(m_failed);
  }
  if (me.window.done && !mine.done) {
    fail_locked("client for " + chips_text(me) + " is no longer finished");
    throw std::runtime_error(m_failed);
  }
  me.window = mine;
  me.in = true;
  const std::uint64_t round = m_round;
  const bool all_in =
      complete() && std::all_of(m_members.begin(), m_members.end(), [](const Member& m) { return m.in; });
  if (all_in) {
    try {
      run_round_locked();
    } catch (const std::exception& e) {
      fail_locked(std::string("server fabric error: ") + e.what());
      throw std::runtime_error(m_failed);
    }
  } else {
    wait_round(lk, round, keepalive);
  }
  deliveries = std::move(me.deliveries);
  me.deliveries.clear();
  return me.answer;
}

void SplitGroup::offer_locked(Time now) {
  // ChipSet::pump's order: chip by chip, each chip's queue until the fabric refuses (inject()
  // runs the fabric's events due by `now` first; their deliveries wait for its own step).
  for (auto& q : m_pending)
    while (!q.empty() && m_fabric->inject(q.front(), now)) q.pop_front();
}

void SplitGroup::run_round_locked() {
  const std::uint32_t chips = m_sys.chips, tiles = m_sys.tiles_per_chip;
  const std::uint32_t fabric_id = chips * tiles + chips;  // ChipSet::add_to's numbering
  // bound[i]: client i has posted every packet stamped at or before it. It will post
  // nothing before its next own event, nor before a tile woken by a delivery runs
  // (at the first clock edge after the delivery).
  std::vector<Time> bound(m_members.size());
  for (std::size_t i = 0; i < m_members.size(); ++i) {
    const WindowMsg& w = m_members[i].window;
    bound[i] = w.done || w.next == kNever ? kNever : std::max(w.time, w.next == 0 ? 0 : w.next - 1);
  }
  const auto safe = [&] { return *std::min_element(bound.begin(), bound.end()); };
  // Every step the fabric sees, in the global (time, component) order, as far as it is known.
  for (;;) {
    const Time s = safe();
    Member* from = nullptr;
    for (Member& m : m_members) {
      if (m.posts.empty()) continue;
      const Post& p = m.posts.front();
      if (!from || p.time < from->posts.front().time ||
          (p.time == from->posts.front().time && p.pkt.id < from->posts.front().pkt.id))
        from = &m;
    }
    const Time f = m_fabric->next_event_time();
    // Tiles' ids are below the fabric's: at equal times their steps come first.
    const bool post_first = from && from->posts.front().time <= f;
    const Time t = post_first ? from->posts.front().time : f;
    if (t == kNever || t > s) break;
    if (post_first) {
      // One step's packets: those of one tile at one time, numbered as the in-process pump does.
      const std::uint64_t component = from->posts.front().pkt.id;
      const std::uint32_t chip = static_cast<std::uint32_t>(component / tiles);
      while (!from->posts.empty() && from->posts.front().time == t && from->posts.front().pkt.id == component) {
        IciPacket p = std::move(from->posts.front().pkt);
        from->posts.pop_front();
        p.id = m_next_packet++;
        m_pending[chip].push_back(std::move(p));
      }
    } else {
      m_step_deliveries.clear();
      m_fabric->advance_to(t);
      m_last_fabric_step = std::make_pair(t, fabric_id);
      for (PacketMsg& d : m_step_deliveries) {
        d.time = t;
        const auto owner = static_cast<std::size_t>(m_owner.at(d.pkt.dst));
        Member& m = m_members[owner];
        if (!m.window.done) bound[owner] = std::min(bound[owner], std::max(m.window.time, t));
        m.deliveries.push_back(std::move(d));
      }
    }
    offer_locked(t);
  }

  const bool all_done = std::all_of(m_members.begin(), m_members.end(), [](const Member& m) { return m.window.done; });
  WindowMsg answer;
  if (all_done) {
    for (std::uint32_t c = 0; c < chips; ++c)
      if (!m_pending[c].empty())
        throw std::runtime_error("chip " + std::to_string(c) + "'s packets are never accepted by the idle fabric");
    // The run ends after the last step of any client or of the fabric (ChipSet::finished).
    std::pair<Time, std::uint32_t> end{0, 0};
    for (const Member& m : m_members) end = std::max(end, std::make_pair(m.window.end_time, m.window.end_component));
    if (m_last_fabric_step) end = std::max(end, *m_last_fabric_step);
    answer.time = end.first;
    answer.done = true;
    answer.end_time = end.first;
    answer.end_component = end.second;
    for (Member& m : m_members) m.answer = answer;
    m_ended = true;
  } else {
    // No delivery can come before a packet posted after the safe time crosses a link, nor
    // before the fabric, left alone, delivers what it holds. With neither (the fabric idle,
    // and no unfinished client will post: their tiles are done and their shadows still run),
    // never: the unfinished run freely to their ends.
    const Time horizon = saturating_add(safe(), saturating_add(1, m_lookahead));
    const Time grant = std::min(next_delivery_locked(horizon), horizon);
    for (Member& m : m_members) {
      m.answer = WindowMsg{};
      // A finished client may run only as far as the unfinished ones are: the end is later.
      m.answer.time = m.window.done ? m_grant : grant;
    }
    m_grant = grant;
  }
  for (std::size_t i = 0; i < m_members.size(); ++i) {
    m_members[i].in = false;
    m_members[i].sealed = bound[i];
  }
  ++m_round;
  m_cv.notify_all();
}

Time SplitGroup::next_delivery_locked(Time horizon) const {
  // The first delivery before `horizon` if no client posts again: a packet posted after the
  // safe time changes no delivery before it (it crosses a link first), nor does a refused one
  // offered again then. A copy of the fabric runs ahead, step by step as the rounds will run
  // the fabric, so the clients meet at deliveries, not at every event inside the fabric.
  const Time next = m_fabric->next_event_time();
  if (next >= horizon) return kNever;
  const auto ahead = copy_fabric(*m_fabric);
  if (!ahead) return next;  // a fabric that cannot be copied: meet at each of its events
  bool delivered = false;
  ahead->set_delivery([&delivered](const IciPacket&) { delivered = true; });
  for (Time t = next; t < horizon; t = ahead->next_event_time()) {
    ahead->advance_to(t);
    if (delivered) return t;
  }
  return kNever;
}

std::vector<std::string> SplitGroup::report(std::size_t member, std::string part,
                                            const std::function<void()>& keepalive) {
  Lock lk(m_mutex);
  if (!m_failed.empty()) throw std::runtime_error(m_failed);
  if (!m_ended) throw std::invalid_argument("REPORT before the end of the split run");
  if (m_reported)
    throw std::invalid_argument("REPORT after the reports were exchanged (a client sends one REPORT, at the end)");
  Member& me = m_members.at(member);
  if (me.in) throw std::invalid_argument("REPORT twice (a client sends one REPORT, at the end)");
  me.part = std::move(part);
  me.in = true;
  const std::uint64_t round = m_round;
  if (std::all_of(m_members.begin(), m_members.end(), [](const Member& m) { return m.in; })) {
    m_reported = true;
    for (Member& m : m_members) m.in = false;
    ++m_round;
    m_cv.notify_all();
  } else {
    wait_round(lk, round, keepalive);
  }
  std::vector<const Member*> order;
  for (const Member& m : m_members) order.push_back(&m);
  std::sort(order.begin(), order.end(), [](const Member* a, const Member* b) {
    return *std::min_element(a->chips.begin(), a->chips.end()) < *std::min_element(b->chips.begin(), b->chips.end());
  });
  std::vector<std::string> parts;
  for (const Member* m : order) parts.push_back(m->part);
  return parts;
}

void SplitGroup::abandon(const std::string& why) {
  std::lock_guard lk(m_mutex);
  if (!complete()) fail_locked(why);
}

void SplitGroup::leave(std::size_t member, const std::string& why) {
  std::lock_guard lk(m_mutex);
  if (m_reported) return;
  fail_locked("the client for " + chips_text(m_members.at(member)) + " left the split run" +
              (why.empty() ? " before its end" : ": " + why));
}

}  // namespace mxc::transport
