#include "models/ici/traffic_run.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <optional>
#include <queue>
#include <stdexcept>
#include <vector>

#include "models/ici/injection_watch.h"

namespace mxc::ici {

namespace {
struct Waiting {
  std::uint32_t dst;
  Time created;
};

/// Bytes per second a chip can send: two ports per active dimension.
double chip_capacity(const Topology& topo, double link_bytes_per_s) {
  return 2.0 * std::max(1u, topo.active_dims()) * link_bytes_per_s;
}

/// One load point: the Bernoulli sources, the packets waiting at them, the
/// fabric they feed, and what is counted of it.
class TrafficRun {
 public:
  TrafficRun(Fabric& fabric, const Topology& topo, const TrafficPattern& pattern, double link_bytes_per_s,
             const TrafficParams& prm);
  ~TrafficRun() { m_fabric.set_delivery(nullptr); }
  TrafficRun(const TrafficRun&) = delete;
  TrafficRun& operator=(const TrafficRun&) = delete;

  TrafficPoint run(const ProgressReport& progress);

 private:
  Time slot_time(std::uint64_t s) const { return static_cast<Time>(static_cast<double>(s) * m_slot_ps); }
  std::uint64_t first_slot_after_stop() const;
  /// Draws chip `c`'s next packet time, if it has one before the end of the run.
  void schedule_next(std::uint32_t c);
  /// Whether the run is over at `now` (next event at `tf`, fabric's).
  bool finished(Time now, Time tf);
  /// Records the backlog halfway through the window and when it closes.
  void snapshot(Time now);
  /// Makes the packets due at `now` and queues them at their sources.
  void create_due(Time now);
  void create(std::uint32_t c, std::uint32_t dst, Time now);
  /// A packet drawn at `now` and not made: its source's share of the cap is out.
  void refuse(Time now);
  /// Runs the fabric from `now` towards the next packet creation at `tg`;
  /// returns the time it got to.
  Time run_fabric(Time now, Time tg);
  void take_deliveries();
  /// Offers the packets waiting at their sources, oldest first, until refused.
  void offer_waiting(Time now);
  void finish();

  Fabric& m_fabric;
  const TrafficPattern& m_pattern;
  const TrafficParams& m_prm;
  const std::uint32_t m_chips;
  const double m_capacity, m_slot_ps;
  const std::uint64_t m_threshold;
  const Time m_win_lo, m_win_hi, m_win_mid, m_stop;
  // A source's share of TrafficParams::max_backlog. As one count for all
  // sources, the cap went to those whose packets leave slowest; the others,
  // refused, went idle and the network carried a fraction of what it can.
  const std::uint64_t m_source_cap;
  std::uint64_t m_end_slot = ~0ull;
  // Sources refused for a full injection queue wait for space rather than
  // offering again after every event, when the fabric can tell.
  InjectionWatch* const m_watch;

  std::vector<BlockMt64> m_rng;
  std::vector<std::uint64_t> m_slot;
  using Arrival = std::pair<Time, std::uint32_t>;  // ties broken by chip number
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> m_arrivals;
  std::vector<std::deque<Waiting>> m_queue;
  std::vector<std::uint32_t> m_dirty;  // chips with packets waiting
  std::vector<bool> m_is_dirty;
  std::vector<std::uint64_t> m_next_id;
  // Per source: packets it made that are not delivered yet, at it or in the
  // network. The cap counts these: the analytic fabric never refuses an
  // injection, so counting the packets waiting at the sources bounded
  // nothing there, and its link queues grew by hundreds of MB per simulated ms.
  std::vector<std::uint64_t> m_source_backlog;
  std::vector<IciPacket> m_inbox;
  std::uint64_t m_queued = 0, m_outstanding = 0;
  TrafficPoint m_pt;
  double m_lat_sum = 0, m_accepted_bytes = 0;
  // Packets made and not delivered yet (waiting at their sources or in the
  // network) halfway through the window and when it closes: a growing
  // backlog is what saturation is. From halfway, so that a warm-up shorter
  // than the latency (the network still filling) is not taken for growth.
  std::uint64_t m_backlog = 0, m_made = 0, m_made_mid = 0, m_made_hi = 0;
  std::optional<std::uint64_t> m_backlog_mid, m_backlog_hi;
};

TrafficRun::TrafficRun(Fabric& fabric, const Topology& topo, const TrafficPattern& pattern, double link_bytes_per_s,
                       const TrafficParams& prm)
    : m_fabric(fabric), m_pattern(pattern), m_prm(prm), m_chips(topo.num_chips()),
      m_capacity(chip_capacity(topo, link_bytes_per_s)),
      m_slot_ps(packet_slot_ps(topo, link_bytes_per_s, prm.packet_bytes)),
      m_threshold(prm.load >= 1.0 ? ~0ull : static_cast<std::uint64_t>(prm.load * 0x1p64)),
      m_win_lo(prm.warmup_ps), m_win_hi(prm.warmup_ps + prm.measure_ps), m_win_mid(m_win_lo + prm.measure_ps / 2),
      m_stop(m_win_hi + prm.drain_limit_ps), m_source_cap(std::max<std::uint64_t>(1, prm.max_backlog / m_chips)),
      m_watch(dynamic_cast<InjectionWatch*>(&fabric)),
      m_slot(m_chips, 0), m_queue(m_chips), m_is_dirty(m_chips, false), m_next_id(m_chips, 0),
      m_source_backlog(m_chips, 0) {
  m_end_slot = first_slot_after_stop();
  // Over all chips, as the accepted load is: transpose's diagonal chips
  // send nothing, and a nominal figure read as loss at zero load.
  m_pt.offered_per_sender = prm.load;
  m_pt.offered_load = pattern.senders() == m_chips ? prm.load : prm.load * pattern.senders() / m_chips;
  m_fabric.set_delivery([this](const IciPacket& p) { m_inbox.push_back(p); });
  for (std::uint32_t c = 0; c < m_chips; ++c) {
    m_rng.emplace_back(prm.seed * 0x9E3779B97F4A7C15ull + c);
    schedule_next(c);
  }
}

// The first slot after `stop`: a packet there is never created, so a source
// stops drawing trials at it. At a load near 0 (below 2^-64 no trial ever
// succeeds) that is what ends the draws; packets before it are drawn as
// without the limit.
std::uint64_t TrafficRun::first_slot_after_stop() const {
  if (!(static_cast<double>(m_stop) / m_slot_ps < 0x1p62)) return ~0ull;
  auto end = static_cast<std::uint64_t>(static_cast<double>(m_stop) / m_slot_ps);
  while (slot_time(end) <= m_stop) ++end;
  while (end > 0 && slot_time(end - 1) > m_stop) --end;
  return end;
}

void TrafficRun::schedule_next(std::uint32_t c) {
  auto& slot = m_slot[c];
  if (slot >= m_end_slot) return;
  const std::uint64_t failed = m_rng[c].count_at_least(m_threshold, m_end_slot - slot);  // failed Bernoulli trials
  if (failed == m_end_slot - slot) return;  // no packet before the end of the run
  slot += failed;
  m_arrivals.emplace(slot_time(slot), c);
  ++slot;
}

TrafficPoint TrafficRun::run(const ProgressReport& progress) {
  ProgressTicker<> ticker(progress);
  while (true) {
    const Time tf = m_fabric.next_event_time();
    const Time tg = m_arrivals.empty() ? kNever : m_arrivals.top().first;
    Time now = std::min(tf, tg);
    if (ticker.tick(now)) throw LoopStopped(now);
    if (finished(now, tf)) break;
    if (tg <= tf) create_due(now);
    else now = run_fabric(now, tg);
    offer_waiting(now);
  }
  finish();
  return m_pt;
}

bool TrafficRun::finished(Time now, Time tf) {
  // Made, not waiting at a source, not delivered: in the network, which has nothing left to do.
  if (tf == kNever && m_backlog > m_queued) {
    m_pt.deadlocked = m_pt.saturated = true;
    return true;
  }
  snapshot(now);
  if (now >= m_win_hi && m_outstanding == 0) return true;
  if (now > m_stop) {
    m_pt.saturated = true;
    return true;
  }
  return false;
}

void TrafficRun::snapshot(Time now) {
  if (now >= m_win_mid && !m_backlog_mid) m_backlog_mid = m_backlog, m_made_mid = m_made;
  if (now >= m_win_hi && !m_backlog_hi) m_backlog_hi = m_backlog, m_made_hi = m_made;
}

void TrafficRun::create_due(Time now) {
  while (!m_arrivals.empty() && m_arrivals.top().first == now) {
    const std::uint32_t c = m_arrivals.top().second;
    m_arrivals.pop();
    // The destination is drawn for a refused packet too, so that a source
    // draws the same numbers, and offers the same packets, with or without the cap.
    const std::uint32_t dst = m_pattern.destination(c, m_rng[c]);
    schedule_next(c);
    if (dst == c) continue;
    if (m_source_backlog[c] >= m_source_cap) refuse(now);
    else create(c, dst, now);
  }
}

void TrafficRun::refuse(Time now) {
  if (now >= m_win_lo && now < m_win_hi) ++m_pt.refused;
}

void TrafficRun::create(std::uint32_t c, std::uint32_t dst, Time now) {
  m_queue[c].push_back(Waiting{dst, now});
  ++m_queued;
  ++m_source_backlog[c];
  ++m_backlog;
  ++m_made;
  if (now >= m_win_lo && now < m_win_hi) {
    ++m_pt.measured;
    ++m_outstanding;
  }
  if (!m_is_dirty[c]) {
    m_is_dirty[c] = true;
    m_dirty.push_back(c);
  }
}

Time TrafficRun::run_fabric(Time now, Time tg) {
  // With no source waiting to inject, nothing happens between fabric
  // events but the events themselves: run them all up to the next arrival
  // in one call (same deliveries, same order). Waiting sources are full,
  // so an offer can first succeed when a queue gets space.
  const Time until = std::min(tg - 1, m_stop);
  if (m_dirty.empty()) m_fabric.advance_to(until);
  else if (m_watch != nullptr) now = m_watch->advance_until_space(until);
  else m_fabric.advance_to(now);
  take_deliveries();
  return now;
}

void TrafficRun::take_deliveries() {
  m_backlog -= m_inbox.size();
  for (const IciPacket& p : m_inbox) {
    --m_source_backlog[p.src];
    if (p.deliver >= m_win_lo && p.deliver < m_win_hi) m_accepted_bytes += p.bytes;
    const Time created = p.addr;
    if (created >= m_win_lo && created < m_win_hi) {
      const double lat = static_cast<double>(p.deliver - created) / 1000.0;
      m_lat_sum += lat;
      m_pt.max_latency_ns = std::max(m_pt.max_latency_ns, lat);
      ++m_pt.delivered;
      --m_outstanding;
    }
  }
  m_inbox.clear();
}

void TrafficRun::offer_waiting(Time now) {
  std::size_t keep = 0;
  for (std::uint32_t c : m_dirty) {
    auto& q = m_queue[c];
    while (!q.empty()) {
      IciPacket p;
      p.id = m_next_id[c];
      p.src = c;
      p.dst = q.front().dst;
      p.bytes = m_prm.packet_bytes;
      p.addr = q.front().created;  // carried along to measure latency
      p.last = true;
      if (!m_fabric.inject(p, now)) break;
      ++m_next_id[c];
      q.pop_front();
      --m_queued;
    }
    if (q.empty())
      m_is_dirty[c] = false;
    else
      m_dirty[keep++] = c;
  }
  m_dirty.resize(keep);
}

void TrafficRun::finish() {
  m_pt.avg_latency_ns = m_pt.delivered ? m_lat_sum / static_cast<double>(m_pt.delivered) : 0.0;
  m_pt.accepted_load = m_accepted_bytes / (m_capacity * m_chips * static_cast<double>(m_prm.measure_ps) * 1e-12);
  // Saturated: measured packets still in the network when the drain ends,
  // or the backlog grew over the window's second half by more than 2 % of
  // the packets made then (below saturation it comes and goes; above, it
  // grows by what the network cannot take). Accepted against offered load
  // would say the same only for windows much longer than the latency: a
  // packet made in the window is delivered after it.
  // (A deadlocked run, stopped early, is saturated anyway.) A source that
  // reached its share of the cap is taken as past any steady state: the
  // point is saturated whatever the growth says (held at the cap, the
  // backlog grows by none).
  m_pt.truncated = m_pt.refused > 0;
  if (m_pt.truncated) m_pt.saturated = true;
  const double grew =
      static_cast<double>(m_backlog_hi.value_or(m_backlog)) - static_cast<double>(m_backlog_mid.value_or(0));
  const double made_then = static_cast<double>((m_backlog_hi ? m_made_hi : m_made) - m_made_mid);
  // Two samples of a backlog of about B packets differ by about sqrt(2B) by
  // chance alone: on a small fabric or a short window that was the 2 % and
  // called a point in ten saturated at a fifth of the capacity. Within three
  // of those it is chance.
  const double mean_backlog =
      (static_cast<double>(m_backlog_hi.value_or(m_backlog)) + static_cast<double>(m_backlog_mid.value_or(0))) / 2;
  const double noise = 3.0 * std::sqrt(2.0 * mean_backlog);
  if (m_outstanding > 0 || grew > std::max({0.02 * made_then, 2.0 * m_chips, noise})) m_pt.saturated = true;
}
}  // namespace

double packet_slot_ps(const Topology& topo, double link_bytes_per_s, std::uint32_t packet_bytes) {
  return packet_bytes * 1e12 / chip_capacity(topo, link_bytes_per_s);
}

TrafficPoint run_traffic(Fabric& fabric, const Topology& topo, const TrafficPattern& pattern, double link_bytes_per_s,
                         const TrafficParams& prm, const ProgressReport& progress) {
  if (!(prm.load > 0.0 && prm.load <= 1.0)) throw std::invalid_argument("traffic: load must be in (0, 1]");
  if (prm.measure_ps == 0) throw std::invalid_argument("traffic: measurement window must be > 0");
  if (prm.packet_bytes == 0) throw std::invalid_argument("traffic: packets need at least one byte");
  TrafficRun run(fabric, topo, pattern, link_bytes_per_s, prm);
  return run.run(progress);
}

}  // namespace mxc::ici
