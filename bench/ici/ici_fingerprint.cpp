// Fingerprint of the packet model, run on demand when changing it for speed:
// prints every simulated result of traffic points (four patterns, 64 B to
// 9000 B, light load to saturation, odd configurations) and of collectives,
// with a hash of the delivery sequence and of the per-link statistics. Two
// builds simulate the same if their outputs are identical.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "models/ici/collective.h"
#include "models/ici/collective_runner.h"
#include "models/ici/injection_watch.h"
#include "models/ici/torus_fabric.h"
#include "models/ici/traffic_run.h"

using namespace mxc;
using namespace mxc::ici;

namespace {
struct Hash {
  std::uint64_t h = 1469598103934665603ull;
  void add(std::uint64_t v) {
    h = (h ^ v) * 1099511628211ull;
    h ^= h >> 29;
  }
};

// Forwards to a TorusFabric and hashes its deliveries in order.
class Tap : public Fabric, public InjectionWatch {
 public:
  explicit Tap(TorusFabric& f) : m_f(f) {
    m_f.set_delivery([this](const IciPacket& p) {
      ++n;
      for (std::uint64_t v :
           {p.id, std::uint64_t{p.src}, std::uint64_t{p.dst}, std::uint64_t{p.bytes}, p.addr, p.inject, p.deliver})
        hash.add(v);
      deliver(p);
    });
  }
  std::string name() const override { return m_f.name(); }
  Time next_event_time() const override { return m_f.next_event_time(); }
  void advance_to(Time now) override { m_f.advance_to(now); }
  Time advance_until_space(Time limit) override { return m_f.advance_until_space(limit); }
  std::uint32_t num_chips() const override { return m_f.num_chips(); }
  bool can_inject(const IciPacket& p) const override { return m_f.can_inject(p); }
  bool inject(const IciPacket& p, Time now) override { return m_f.inject(p, now); }
  Hash hash;
  std::uint64_t n = 0;

 private:
  TorusFabric& m_f;
};

void stats(const TorusFabric& f, const Tap& t) {
  Hash lh;
  for (std::uint32_t c = 0; c < f.num_chips(); ++c)
    for (std::uint32_t p = 0; p < f.topology().num_ports(); ++p) {
      const Link& l = f.link(c, p);
      for (std::uint64_t v : {l.s_packets, l.s_wire_bytes, l.s_busy_ps, l.busy_until}) lh.add(v);
      for (const auto& v : l.vcs) lh.add(static_cast<std::uint64_t>(v.credits));
    }
  std::printf("  msgs %" PRIu64 " bytes %" PRIu64 " phops %" PRIu64 " fhops %" PRIu64 " inflight %" PRIu64
              " delivered %" PRIu64 " dhash %016" PRIx64 " lhash %016" PRIx64 "\n",
              f.s_messages, f.s_bytes, f.s_packet_hops, f.s_flit_hops, f.in_flight(), t.n, t.hash.h, lh.h);
}

IciConfig cfg(std::vector<std::uint32_t> dims, bool wrap = true) {
  IciConfig c;
  c.dims = dims;
  c.wrap = {wrap};
  return c;
}

void traffic(const char* label, const IciConfig& c, TrafficKind k, std::uint32_t bytes, double load) {
  TorusFabric f(c);
  Tap tap(f);
  const TrafficPattern pat(k, f.topology(), 3, 0.3);
  TrafficParams prm;
  prm.load = load;
  prm.packet_bytes = bytes;
  prm.warmup_ps = 2'000'000;
  prm.measure_ps = 8'000'000;
  prm.drain_limit_ps = 30'000'000;
  prm.seed = 7;
  const TrafficPoint p = run_traffic(tap, f.topology(), pat, c.link_gbps * 1e9, prm);
  std::printf("%s %s %uB load %.2f: offered %.17g accepted %.17g avg %.17g max %.17g measured %" PRIu64
              " delivered %" PRIu64 " sat %d\n",
              label, to_string(k).c_str(), bytes, load, p.offered_load, p.accepted_load, p.avg_latency_ns,
              p.max_latency_ns, p.measured, p.delivered, p.saturated);
  stats(f, tap);
}

void coll(const char* label, const IciConfig& c, Collective k, Algorithm a, std::uint64_t bytes) {
  TorusFabric f(c);
  Tap tap(f);
  const Schedule s = build_schedule(k, a, f.topology(), bytes);
  CollectiveRunner r(tap, f.topology());
  const CollectiveRun run = r.run(s);
  std::printf("%s %s %s %" PRIu64 " B: start %" PRIu64 " end %" PRIu64 " messages %" PRIu64 " sent %" PRIu64 "\n",
              label, to_string(k).c_str(), to_string(a).c_str(), bytes, run.start_ps, run.end_ps, run.messages,
              run.bytes_sent);
  stats(f, tap);
}
}  // namespace

int main() {
  const TrafficKind kinds[] = {TrafficKind::kUniform, TrafficKind::kTranspose, TrafficKind::kNeighbour,
                               TrafficKind::kHotspot};
  for (auto k : kinds)
    for (std::uint32_t b : {64u, 1024u, 9000u})
      for (double load : {0.05, 0.3, 0.6, 0.95}) {
        traffic("4x4", cfg({4, 4}), k, b, load);
        traffic("4x4x4", cfg({4, 4, 4}), k, b, load);
      }
  IciConfig odd = cfg({3, 5}, false);  // mesh, one VC per class, small buffers: credit limited
  odd.vcs_per_class = 1;
  odd.buffer_bytes_per_vc = 8192;
  odd.max_payload_bytes = 1000;
  for (double load : {0.1, 0.5, 0.9}) {
    traffic("3x5mesh", odd, TrafficKind::kUniform, 64, load);
    traffic("3x5mesh", odd, TrafficKind::kUniform, 2500, load);
  }
  IciConfig many = cfg({8});  // ring, 3 VCs per class, few injection slots
  many.vcs_per_class = 3;
  many.injection_queue = 4;
  for (double load : {0.2, 0.9}) traffic("ring8", many, TrafficKind::kUniform, 300, load);
  const Collective cs[] = {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather,
                           Collective::kAllToAll};
  const Algorithm as[] = {Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kDimOrder, Algorithm::kAllAxes};
  for (auto k : cs)
    for (auto a : as)
      for (std::uint64_t b : {0ull, 1000ull, 1ull << 20, 16ull << 20}) coll("4x4x4", cfg({4, 4, 4}), k, a, b);
  for (auto a : as) coll("16x16", cfg({16, 16}), Collective::kAllReduce, a, 4ull << 20);
  coll("16x16", cfg({16, 16}), Collective::kAllToAll, Algorithm::kAllAxes, 1ull << 20);
  return 0;
}
