#include "models/ici/traffic_run.h"

#include <algorithm>
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
constexpr std::uint64_t kMaxQueued = 4'000'000;  // beyond this the point is saturated
}  // namespace

namespace {
/// Bytes per second a chip can send: two ports per active dimension.
double chip_capacity(const Topology& topo, double link_bytes_per_s) {
  return 2.0 * std::max(1u, topo.active_dims()) * link_bytes_per_s;
}
}  // namespace

double packet_slot_ps(const Topology& topo, double link_bytes_per_s, std::uint32_t packet_bytes) {
  return packet_bytes * 1e12 / chip_capacity(topo, link_bytes_per_s);
}

TrafficPoint run_traffic(Fabric& fabric, const Topology& topo, const TrafficPattern& pattern, double link_bytes_per_s,
                         const TrafficParams& prm) {
  if (!(prm.load > 0.0 && prm.load <= 1.0)) throw std::invalid_argument("traffic: load must be in (0, 1]");
  if (prm.measure_ps == 0) throw std::invalid_argument("traffic: measurement window must be > 0");
  if (prm.packet_bytes == 0) throw std::invalid_argument("traffic: packets need at least one byte");
  const std::uint32_t chips = topo.num_chips();
  const double capacity = chip_capacity(topo, link_bytes_per_s);
  const double slot_ps = packet_slot_ps(topo, link_bytes_per_s, prm.packet_bytes);
  const auto threshold = prm.load >= 1.0 ? ~0ull : static_cast<std::uint64_t>(prm.load * 0x1p64);
  const Time win_lo = prm.warmup_ps, win_hi = prm.warmup_ps + prm.measure_ps;
  const Time stop = win_hi + prm.drain_limit_ps;
  auto slot_time = [&](std::uint64_t s) { return static_cast<Time>(static_cast<double>(s) * slot_ps); };
  // The first slot after `stop`: a packet there is never created, so a
  // source stops drawing trials at it. At a load near 0 (below 2^-64 no
  // trial ever succeeds) that is what ends the draws; packets before it
  // are drawn as without the limit.
  std::uint64_t end_slot = ~0ull;
  if (static_cast<double>(stop) / slot_ps < 0x1p62) {
    end_slot = static_cast<std::uint64_t>(static_cast<double>(stop) / slot_ps);
    while (slot_time(end_slot) <= stop) ++end_slot;
    while (end_slot > 0 && slot_time(end_slot - 1) > stop) --end_slot;
  }

  std::vector<BlockMt64> rng;
  std::vector<std::uint64_t> slot(chips, 0);
  using Arrival = std::pair<Time, std::uint32_t>;  // ties broken by chip number
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> arrivals;
  auto next_arrival = [&](std::uint32_t c) {
    if (slot[c] >= end_slot) return;
    const std::uint64_t failed = rng[c].count_at_least(threshold, end_slot - slot[c]);  // failed Bernoulli trials
    if (failed == end_slot - slot[c]) return;  // no packet before the end of the run
    slot[c] += failed;
    const Time t = slot_time(slot[c]);
    ++slot[c];
    arrivals.emplace(t, c);
  };
  for (std::uint32_t c = 0; c < chips; ++c) {
    rng.emplace_back(prm.seed * 0x9E3779B97F4A7C15ull + c);
    next_arrival(c);
  }

  std::vector<std::deque<Waiting>> queue(chips);
  std::vector<std::uint32_t> dirty;
  std::vector<bool> is_dirty(chips, false);
  std::vector<std::uint64_t> next_id(chips, 0);
  std::uint64_t queued = 0, outstanding = 0;
  TrafficPoint pt;
  pt.offered_load = prm.load;
  double lat_sum = 0, accepted_bytes = 0;
  std::vector<IciPacket> inbox;
  fabric.set_delivery([&](const IciPacket& p) { inbox.push_back(p); });
  // Sources refused for a full injection queue wait for space rather than
  // offering again after every event, when the fabric can tell.
  InjectionWatch* const watch = dynamic_cast<InjectionWatch*>(&fabric);

  // Packets made and not delivered yet (waiting at their sources or in the
  // network) halfway through the window and when it closes: a growing
  // backlog is what saturation is. From halfway, so that a warm-up shorter
  // than the latency (the network still filling) is not taken for growth.
  const Time win_mid = win_lo + prm.measure_ps / 2;
  std::uint64_t backlog = 0, made = 0, made_mid = 0, made_hi = 0;
  std::optional<std::uint64_t> backlog_mid, backlog_hi;
  Time now = 0;
  while (true) {
    const Time tf = fabric.next_event_time();
    const Time tg = arrivals.empty() ? kNever : arrivals.top().first;
    // Made, not waiting at a source, not delivered: in the network, which has nothing left to do.
    if (tf == kNever && backlog > queued) {
      pt.deadlocked = pt.saturated = true;
      break;
    }
    now = std::min(tf, tg);
    if (now >= win_mid && !backlog_mid) backlog_mid = backlog, made_mid = made;
    if (now >= win_hi && !backlog_hi) backlog_hi = backlog, made_hi = made;
    if (now >= win_hi && outstanding == 0) break;
    if (now > stop || queued > kMaxQueued) {
      pt.saturated = true;
      break;
    }
    if (tg <= tf) {
      while (!arrivals.empty() && arrivals.top().first == now) {
        const std::uint32_t c = arrivals.top().second;
        arrivals.pop();
        const std::uint32_t dst = pattern.destination(c, rng[c]);
        next_arrival(c);
        if (dst == c) continue;
        queue[c].push_back(Waiting{dst, now});
        ++queued;
        ++backlog;
        ++made;
        if (now >= win_lo && now < win_hi) {
          ++pt.measured;
          ++outstanding;
        }
        if (!is_dirty[c]) {
          is_dirty[c] = true;
          dirty.push_back(c);
        }
      }
    } else {
      // With no source waiting to inject, nothing happens between fabric
      // events but the events themselves: run them all up to the next
      // arrival in one call (same deliveries, same order). Waiting sources
      // are full, so an offer can first succeed when a queue gets space.
      const Time until = std::min(tg - 1, stop);
      if (dirty.empty()) fabric.advance_to(until);
      else if (watch != nullptr) now = watch->advance_until_space(until);
      else fabric.advance_to(now);
      backlog -= inbox.size();
      for (const IciPacket& p : inbox) {
        if (p.deliver >= win_lo && p.deliver < win_hi) accepted_bytes += p.bytes;
        const Time created = p.addr;
        if (created >= win_lo && created < win_hi) {
          const double lat = static_cast<double>(p.deliver - created) / 1000.0;
          lat_sum += lat;
          pt.max_latency_ns = std::max(pt.max_latency_ns, lat);
          ++pt.delivered;
          --outstanding;
        }
      }
      inbox.clear();
    }
    std::size_t keep = 0;
    for (std::uint32_t c : dirty) {
      auto& q = queue[c];
      while (!q.empty()) {
        IciPacket p;
        p.id = next_id[c];
        p.src = c;
        p.dst = q.front().dst;
        p.bytes = prm.packet_bytes;
        p.addr = q.front().created;  // carried along to measure latency
        p.last = true;
        if (!fabric.inject(p, now)) break;
        ++next_id[c];
        q.pop_front();
        --queued;
      }
      if (q.empty())
        is_dirty[c] = false;
      else
        dirty[keep++] = c;
    }
    dirty.resize(keep);
  }
  fabric.set_delivery(nullptr);
  pt.avg_latency_ns = pt.delivered ? lat_sum / static_cast<double>(pt.delivered) : 0.0;
  pt.accepted_load = accepted_bytes / (capacity * chips * static_cast<double>(prm.measure_ps) * 1e-12);
  // Saturated: measured packets still in the network when the drain ends,
  // or the backlog grew over the window's second half by more than 2 % of
  // the packets made then (below saturation it comes and goes; above, it
  // grows by what the network cannot take). Accepted against offered load
  // would say the same only for windows much longer than the latency: a
  // packet made in the window is delivered after it.
  // (A run stopped before the window closed is saturated anyway.)
  const double grew = static_cast<double>(backlog_hi.value_or(backlog)) - static_cast<double>(backlog_mid.value_or(0));
  const double made_then = static_cast<double>((backlog_hi ? made_hi : made) - made_mid);
  if (outstanding > 0 || grew > std::max(0.02 * made_then, 2.0 * chips)) pt.saturated = true;
  return pt;
}

}  // namespace mxc::ici
