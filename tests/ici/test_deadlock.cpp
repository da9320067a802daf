// Saturating all-to-all with the smallest legal buffers: with dateline VCs
// every message arrives exactly once and in order per pair; without them the
// same traffic deadlocks, which shows the datelines are what prevents it.
#include <catch2/catch.hpp>

#include <deque>
#include <map>

#include "models/ici/torus_fabric.h"
#include "models/ici/traffic_run.h"

using namespace mxc;
using namespace mxc::ici;

namespace {

IciConfig tight(std::vector<std::uint32_t> dims, bool datelines) {
  IciConfig c;
  c.dims = std::move(dims);
  c.wrap = {true};
  c.max_payload_bytes = 192;
  c.header_bytes = 64;
  c.flit_bytes = 64;
  c.buffer_bytes_per_vc = 256;  // exactly one maximum packet per VC
  c.injection_queue = 4;
  c.datelines = datelines;
  return c;
}

struct Result {
  bool deadlocked = false;
  std::uint64_t delivered = 0;
  bool exactly_once_in_order = true;
};

// Every chip sends `rounds` messages to every other chip (round-major), of
// 1 to 3 wire packets, each carrying (src, sequence) in its payload.
Result all_to_all(const IciConfig& cfg, std::uint32_t rounds) {
  TorusFabric f(cfg);
  const std::uint32_t p = f.num_chips();
  std::vector<std::deque<IciPacket>> todo(p);
  for (std::uint32_t src = 0; src < p; ++src)
    for (std::uint32_t r = 0; r < rounds; ++r)
      for (std::uint32_t k = 1; k < p; ++k) {
        IciPacket m;
        m.src = src;
        m.dst = (src + k) % p;
        m.id = r;
        m.bytes = 64 + 160 * ((src + k + r) % 3);
        m.payload.assign(m.bytes, 0);
        m.payload[0] = static_cast<std::uint8_t>(src);
        m.payload[1] = static_cast<std::uint8_t>(r);
        todo[src].push_back(m);
      }
  Result res;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> next;  // expected sequence per pair
  f.set_delivery([&](const IciPacket& m) {
    ++res.delivered;
    std::uint32_t& want = next[{m.src, m.dst}];
    if (m.payload.size() != m.bytes || m.payload[0] != m.src || m.payload[1] != want) res.exactly_once_in_order = false;
    ++want;
  });
  Time now = 0;
  while (true) {
    for (auto& q : todo)
      while (!q.empty() && f.inject(q.front(), now)) q.pop_front();
    if (f.next_event_time() == kNever) break;
    now = f.next_event_time();
    f.advance_to(now);
  }
  res.deadlocked = f.deadlocked();
  for (const auto& [pair, n] : next)
    if (n != rounds) res.exactly_once_in_order = false;
  if (next.size() != static_cast<std::size_t>(p) * (p - 1)) res.exactly_once_in_order = false;
  return res;
}

}  // namespace

TEST_CASE("saturating all-to-all on a 4x4 torus: no deadlock, exactly once, in order") {
  const Result r = all_to_all(tight({4, 4}, true), 6);
  CHECK_FALSE(r.deadlocked);
  CHECK(r.delivered == 16u * 15 * 6);
  CHECK(r.exactly_once_in_order);
}

TEST_CASE("saturating all-to-all on odd and 3D tori: no deadlock, exactly once, in order") {
  for (auto dims : {std::vector<std::uint32_t>{5, 3}, std::vector<std::uint32_t>{3, 3, 3},
                    std::vector<std::uint32_t>{8}}) {
    const Result r = all_to_all(tight(dims, true), 3);
    std::uint32_t p = 1;
    for (auto k : dims) p *= k;
    CHECK_FALSE(r.deadlocked);
    CHECK(r.delivered == std::uint64_t{p} * (p - 1) * 3);
    CHECK(r.exactly_once_in_order);
  }
}

TEST_CASE("without dateline classes the same traffic on a ring deadlocks") {
  IciConfig cfg = tight({8}, false);
  cfg.vcs_per_class = 1;
  const Result r = all_to_all(cfg, 6);
  CHECK(r.deadlocked);
  CHECK(r.delivered < 8u * 7 * 6);
}

TEST_CASE("a traffic run says it deadlocked, rather than saturated and waiting out its time") {
  // The same ring without datelines under uniform traffic: the point ends at the deadlock,
  // flagged; with datelines it runs to its end, no deadlock.
  TrafficParams prm;
  prm.load = 0.9;
  prm.packet_bytes = 192;
  prm.measure_ps = 2'000'000;
  prm.drain_limit_ps = 50'000'000;
  for (const bool datelines : {false, true}) {
    IciConfig cfg = tight({8}, datelines);
    cfg.vcs_per_class = 1;
    TorusFabric f(cfg);
    const TrafficPattern uniform(TrafficKind::kUniform, f.topology());
    const TrafficPoint pt = run_traffic(f, f.topology(), uniform, 45e9, prm);
    INFO("datelines " << datelines);
    CHECK(pt.deadlocked == !datelines);
    CHECK(f.deadlocked() == !datelines);
    if (!datelines) CHECK(pt.saturated);
  }
}
