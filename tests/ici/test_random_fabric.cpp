// Random small fabrics and random messages on TorusFabric and on the
// independent reference (fabric_reference.h): every message must be accepted
// or refused alike and delivered at the same picosecond, and both must keep
// the documented invariants (delivery no earlier than the zero-load latency,
// a pair's messages in injection order, nothing left in flight unless without
// datelines, where both must stop alike), and a second run must repeat the first.
//
// The fabric is driven as a co-simulation kernel drives it: at each time the
// senders offer their messages before or after the fabric's own step (drawn
// from the time), a refused message is offered again a fixed delay later or
// when advance_until_space reports space, some messages are answered a delay
// after their delivery, and each delivery must be handed over at its own time.
// Every seed runs; the first failing one is shown in detail, with the fewest
// of its messages that still fail. MXCOSIM_RANDOM_SEED (first seed) and
// MXCOSIM_RANDOM_SEEDS (how many) choose the seeds; "[.random-fabric-long]"
// runs 20000 unless told otherwise.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "models/ici/torus_fabric.h"
#include "tests/ici/fabric_reference.h"

using namespace mxc;
using namespace mxc::ici;

namespace {

std::uint64_t env_count(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::stoull(v) : fallback;
}

// A well-mixed 64-bit function of x (splitmix64's finaliser).
std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct Offer {
  IciPacket pkt;
  Time t = 0;
  std::int64_t reply_bytes = -1;  // >= 0: its destination answers with this many bytes once it has it
};

// Ids of answers: past every message's own id (ids count up from 0 per source).
constexpr std::uint64_t kReplyId = 1'000'000'000;

struct Scenario {
  IciConfig cfg;
  std::vector<Offer> offers;  // by time, then in the order listed
  Time retry_ps = 1;          // a refused message is offered again this much later
  bool watch = false;         // or when advance_until_space says a full queue got space
  Time reply_ps = 1;          // an answer is offered this much after the delivery it answers
  std::uint64_t copy_after = 0;  // the model goes on as a copy of itself after this many calls (0: never)
  std::uint64_t driver_seed = 0;
};

template <class T>
T pick(std::mt19937_64& rng, std::initializer_list<T> xs) {
  return *(xs.begin() + rng() % xs.size());
}

Scenario random_scenario(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto below = [&](std::uint64_t n) { return rng() % n; };
  Scenario s;
  IciConfig& c = s.cfg;
  c.name = "random";
  const std::uint32_t dims = 1 + static_cast<std::uint32_t>(below(3));
  const std::uint32_t max_size = dims == 1 ? 8 : dims == 2 ? 5 : 3;
  c.dims.clear();
  for (std::uint32_t d = 0; d < dims; ++d) c.dims.push_back(1 + static_cast<std::uint32_t>(below(max_size)));
  if (c.dims.size() == 1 && c.dims[0] == 1) c.dims[0] = 2;
  c.wrap.clear();
  if (below(2) == 0) {
    c.wrap.push_back(below(4) != 0);
  } else {
    for (std::uint32_t d = 0; d < dims; ++d) c.wrap.push_back(below(4) != 0);
  }
  c.link_gbps = pick<double>(rng, {1.0, 3.0, 10.0, 45.0, 64.0, 1000.0, 7.5});
  c.link_latency_ps = pick<Time>(rng, {0, 1, 37, 1000, 20'000, 500'000});
  c.router_latency_ps = pick<Time>(rng, {0, 1, 53, 1000, 20'000, 500'000});
  c.max_payload_bytes = pick<std::uint32_t>(rng, {1, 16, 64, 100, 256, 4096});
  c.header_bytes = pick<std::uint32_t>(rng, {0, 1, 8, 64});
  if (c.header_bytes == 0 && below(2) == 0) c.header_bytes = 16;
  c.flit_bytes = pick<std::uint32_t>(rng, {1, 8, 16, 64});
  c.vcs_per_class = below(3) == 0 ? 2 : 1;
  if (below(10) == 0) c.vcs_per_class = 3;
  const std::uint64_t packet_buffer = std::uint64_t{c.flits(c.max_payload_bytes + c.header_bytes)} * c.flit_bytes;
  // Mostly one or two packets' room, so credits bind; sometimes a spare part flit.
  const std::uint64_t spare = below(3) == 0 ? below(c.flit_bytes) : 0;
  c.buffer_bytes_per_vc = static_cast<std::uint32_t>(packet_buffer * (1 + below(3)) + spare);
  c.injection_queue = below(3) == 0 ? 4096 : 1 + static_cast<std::uint32_t>(below(4));
  // Without datelines a ring's traffic may deadlock: both must stop alike. No refusals then (a
  // refused message would be offered again for ever).
  if (below(8) == 0) {
    c.datelines = false;
    c.injection_queue = 4096;
  }
  c.validate();

  const std::uint32_t chips = [&] {
    std::uint32_t n = 1;
    for (auto k : c.dims) n *= k;
    return n;
  }();
  const Time ser_full = c.serialise_ps(c.max_payload_bytes + c.header_bytes);
  const Time spread = std::max<Time>(1, (c.router_latency_ps + c.link_latency_ps + ser_full) * (1 + below(6)));
  const std::size_t n = 1 + below(below(4) == 0 ? 400 : 40);
  std::vector<Time> burst_times;
  for (int i = 0; i < 3; ++i) burst_times.push_back(below(spread));
  std::vector<std::uint64_t> next_id(chips, 0);
  for (std::size_t i = 0; i < n; ++i) {
    Offer o;
    o.pkt.src = static_cast<std::uint32_t>(below(chips));
    o.pkt.dst = below(8) == 0 ? o.pkt.src : static_cast<std::uint32_t>(below(chips));
    o.pkt.id = next_id[o.pkt.src]++;
    o.pkt.vc = static_cast<std::uint8_t>(below(4));
    switch (below(5)) {
      case 0: o.pkt.bytes = 0; break;
      case 1: o.pkt.bytes = 1 + static_cast<std::uint32_t>(below(c.max_payload_bytes)); break;
      case 2: o.pkt.bytes = c.max_payload_bytes * (1 + static_cast<std::uint32_t>(below(3))); break;
      default: o.pkt.bytes = static_cast<std::uint32_t>(below(std::uint64_t{c.max_payload_bytes} * 4 + 2)); break;
    }
    o.t = below(3) == 0 ? burst_times[below(burst_times.size())] : below(spread);
    s.offers.push_back(o);
  }
  std::stable_sort(s.offers.begin(), s.offers.end(), [](const Offer& a, const Offer& b) { return a.t < b.t; });
  // Not much shorter than a hop, or a full queue is offered millions of times.
  const Time hop = c.router_latency_ps + c.link_latency_ps + ser_full;
  s.retry_ps = std::max<Time>(1, hop / 16) + below(std::max<Time>(2, hop));
  s.watch = below(2) == 0;
  s.driver_seed = rng();
  if (below(4) == 0) s.copy_after = 1 + below(3 * s.offers.size());
  // Half the others answer some messages: traffic that depends on the fabric's own timing. (Not
  // with s.watch: advance_until_space may run past the time an answer is due, which the driver
  // learns only from the deliveries it hands over.)
  if (!s.watch && below(2) == 0) {
    s.reply_ps = 1 + below(std::max<Time>(2, hop));
    for (Offer& o : s.offers)
      if (below(2) == 0) o.reply_bytes = static_cast<std::int64_t>(below(std::uint64_t{c.max_payload_bytes} * 2 + 1));
  }
  return s;
}

// A message refused again and again: its source's queue never got space (a deadlock), or a driver bug.
constexpr std::size_t kMaxRefusals = 1'000'000;

struct Outcome {
  std::vector<IciPacket> delivered;                        // in delivery order
  std::vector<std::pair<std::uint64_t, Time>> refusals;    // (offer index, time)
  std::vector<std::size_t> accepted;                       // offer indices in the order accepted
  std::string error;                                       // a broken driver rule, if any
  bool left_in_flight = false;
};

// Offers by (time, index); index n + k is the answer to message k of n.
struct OfferQueue {
  std::set<std::pair<Time, std::size_t>> q;
  explicit OfferQueue(const Scenario& s) {
    for (std::size_t i = 0; i < s.offers.size(); ++i) q.emplace(s.offers[i].t, i);
  }
  Time next() const { return q.empty() ? kNever : q.begin()->first; }
};

// The message of an offer index: one of the scenario's, or the answer to one.
IciPacket packet_of(const Scenario& s, std::size_t i) {
  const std::size_t n = s.offers.size();
  if (i < n) return s.offers[i].pkt;
  const Offer& o = s.offers[i - n];
  IciPacket p;
  p.src = o.pkt.dst;
  p.dst = o.pkt.src;
  p.id = kReplyId + (i - n);
  p.bytes = static_cast<std::uint32_t>(o.reply_bytes);
  return p;
}

// Offers the scenario's messages to `f` (TorusFabric or the reference) and runs it to the end. A
// refused message is offered again retry_ps later, or, with s.watch, when advance_until_space says a
// full queue got space (then all waiting ones are, in the order refused), as the traffic driver does.
// `delivered()` is what the fabric delivered so far; a message with an answer gets it offered
// reply_ps after its delivery (or when the driver sees it, if later).
template <class F, class D>
void drive(F& f, const Scenario& s, Outcome& out, Time& step_time, bool& watching, D delivered) {
  OfferQueue offers(s);
  std::vector<std::size_t> waiting;  // refused, with s.watch: offered again when space is made
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::size_t> index_of;  // (src, id) -> offer
  for (std::size_t i = 0; i < s.offers.size(); ++i) index_of[{s.offers[i].pkt.src, s.offers[i].pkt.id}] = i;
  std::size_t seen = 0;
  auto answer = [&](Time now) {
    for (; seen < delivered().size(); ++seen) {
      const IciPacket& p = delivered()[seen];
      if (p.id >= kReplyId) continue;
      const std::size_t k = index_of.at({p.src, p.id});
      if (s.offers[k].reply_bytes >= 0) offers.q.emplace(std::max(p.deliver + s.reply_ps, now), s.offers.size() + k);
    }
  };
  auto offer = [&](std::size_t i, Time t) {
    const bool took = f.inject(packet_of(s, i), t);
    answer(t);
    if (took) {
      out.accepted.push_back(i);
      return true;
    }
    out.refusals.emplace_back(i, t);
    return false;
  };
  auto offer_due = [&](Time t) {
    while (offers.next() == t) {
      const std::size_t i = offers.q.begin()->second;
      offers.q.erase(offers.q.begin());
      if (offer(i, t)) continue;
      if (s.watch)
        waiting.push_back(i);
      else
        offers.q.emplace(t + s.retry_ps, i);
    }
  };
  for (std::uint64_t guard = 0;; ++guard) {
    if (guard > 50'000'000 || out.refusals.size() > kMaxRefusals) {
      out.error = "the driver did not finish";
      break;
    }
    if (!waiting.empty()) {
      const Time next = offers.next();
      watching = true;
      const Time t = f.advance_until_space(next == kNever ? kNever - 1 : next);
      watching = false;
      step_time = t;
      answer(t);
      std::vector<std::size_t> again;
      for (std::size_t i : waiting)
        if (!offer(i, t)) again.push_back(i);
      waiting.swap(again);
      offer_due(t);
      continue;
    }
    const Time t = std::min(offers.next(), f.next_event_time());
    if (t == kNever) break;
    step_time = t;
    // Drawn from the time, not from a sequence: the two fabrics have steps at different times.
    if (splitmix(s.driver_seed ^ t) % 2 == 0) {  // the senders first, as a kernel runs tiles first at a tie
      offer_due(t);
      // Not when one was refused and waits for space: this step could make it, and
      // advance_until_space reports only what it runs (as the traffic driver calls it).
      if (waiting.empty()) {
        f.advance_to(t);
        answer(t);
      }
    } else {
      f.advance_to(t);
      answer(t);
      offer_due(t);
    }
  }
  out.left_in_flight = f.in_flight() != 0;
}

// The model, copied once after `copy_after` calls and then run on as the copy, the original gone
// (the served models copy a fabric per session): the copy must go on exactly as the original would.
struct CopiedMidway {
  std::unique_ptr<TorusFabric> f;
  std::uint64_t calls = 0, copy_after = 0;  // 0: never
  void call() {
    if (++calls == copy_after) f = std::make_unique<TorusFabric>(*f);
  }
  bool inject(const IciPacket& p, Time t) {
    call();
    return f->inject(p, t);
  }
  Time next_event_time() const { return f->next_event_time(); }
  void advance_to(Time t) {
    call();
    f->advance_to(t);
  }
  Time advance_until_space(Time limit) {
    call();
    return f->advance_until_space(limit);
  }
  std::uint64_t in_flight() const { return f->in_flight(); }
};

Outcome run_model(const Scenario& s) {
  Outcome out;
  CopiedMidway f{std::make_unique<TorusFabric>(s.cfg), 0, s.copy_after};
  Time step_time = 0;
  bool watching = false;
  f.f->set_delivery([&](const IciPacket& p) {
    // Inside advance_until_space deliveries come as its events run; the order is checked below.
    if (!watching && p.deliver != step_time && out.error.empty()) {
      std::ostringstream e;
      e << "message " << p.src << ":" << p.id << " handed over at " << step_time << " for " << p.deliver;
      out.error = e.str();
    }
    out.delivered.push_back(p);
  });
  drive(f, s, out, step_time, watching, [&]() -> const std::vector<IciPacket>& { return out.delivered; });
  return out;
}

Outcome run_reference(const Scenario& s) {
  Outcome out;
  test::FabricReference r(s.cfg);
  Time step_time = 0;
  bool watching = false;
  drive(r, s, out, step_time, watching, [&]() -> const std::vector<IciPacket>& { return r.delivered(); });
  out.delivered = r.delivered();
  return out;
}

std::string describe(const Scenario& s) {
  std::ostringstream o;
  const IciConfig& c = s.cfg;
  o << "dims";
  for (auto k : c.dims) o << " " << k;
  o << " wrap";
  for (bool w : c.wrap) o << " " << w;
  o << " | " << c.link_gbps << " GB/s, link " << c.link_latency_ps << " ps, router " << c.router_latency_ps
    << " ps, payload " << c.max_payload_bytes << " B, header " << c.header_bytes << " B, flit " << c.flit_bytes
    << " B, vcs/class " << c.vcs_per_class << ", buffer " << c.buffer_bytes_per_vc << " B, injection queue "
    << c.injection_queue << (c.datelines ? "" : ", no datelines");
  if (s.copy_after) o << ", the model copied after " << s.copy_after << " calls";
  o << ", refused offered again ";
  if (s.watch)
    o << "when a queue gets space\n";
  else
    o << s.retry_ps << " ps later\n";
  for (const Offer& x : s.offers) {
    o << "  t=" << x.t << " " << x.pkt.src << "->" << x.pkt.dst << " id " << x.pkt.id << " " << x.pkt.bytes << " B";
    if (x.reply_bytes >= 0) o << ", answered with " << x.reply_bytes << " B " << s.reply_ps << " ps after";
    o << "\n";
  }
  return o.str();
}

// Serialisation by hand: ceil(wire bytes / bandwidth) in picoseconds, full packets then the rest.
Time zero_load_ps(const IciConfig& c, std::uint32_t hops, std::uint64_t bytes) {
  if (hops == 0) return 0;
  const std::uint64_t bw = static_cast<std::uint64_t>(c.link_gbps * 1e9 + 0.5);
  auto ser = [&](std::uint64_t wire) { return (wire * 1'000'000'000'000ull + bw - 1) / bw; };
  Time t = hops * (c.router_latency_ps + c.link_latency_ps);
  std::uint64_t left = bytes;
  do {
    const std::uint64_t p = std::min<std::uint64_t>(left, c.max_payload_bytes);
    t += ser(p + c.header_bytes);
    left -= p;
  } while (left > 0);
  return t;
}

// How much of the fabric the seeds exercised: messages that waited (delivered later than their
// zero-load latency) and offers refused for a full injection queue.
struct Coverage {
  std::uint64_t messages = 0, waited = 0, refusals = 0, deadlocks = 0;
};

// What is wrong with one scenario, or empty.
std::string check(const Scenario& s, Coverage* cov = nullptr) {
  const Outcome m = run_model(s);
  const Outcome r = run_reference(s);
  // Same scenario, same run: bit for bit.
  const Outcome again = run_model(s);
  auto same_run = [](const Outcome& a, const Outcome& b) {
    if (a.refusals != b.refusals || a.accepted != b.accepted || a.delivered.size() != b.delivered.size()) return false;
    for (std::size_t i = 0; i < a.delivered.size(); ++i)
      if (a.delivered[i].src != b.delivered[i].src || a.delivered[i].id != b.delivered[i].id ||
          a.delivered[i].deliver != b.delivered[i].deliver)
        return false;
    return true;
  };
  if (cov) cov->refusals += m.refusals.size();
  std::ostringstream why;
  if (!m.error.empty()) why << "model driver: " << m.error << "\n";
  if (!same_run(m, again)) why << "model: a second run of the same scenario differs\n";
  if (!r.error.empty()) why << "reference driver: " << r.error << "\n";
  if (s.cfg.datelines && m.left_in_flight) why << "model: messages left in flight\n";
  if (s.cfg.datelines && r.left_in_flight) why << "reference: messages left in flight\n";
  if (m.left_in_flight != r.left_in_flight)
    why << "deadlocked: model " << m.left_in_flight << ", reference " << r.left_in_flight << "\n";
  if (cov) cov->deadlocks += m.left_in_flight;
  if (m.refusals != r.refusals) {
    why << "refusals differ: model " << m.refusals.size() << ", reference " << r.refusals.size() << "\n";
    for (std::size_t i = 0; i < std::max(m.refusals.size(), r.refusals.size()); ++i) {
      const bool a = i < m.refusals.size(), b = i < r.refusals.size();
      if (a && b && m.refusals[i] == r.refusals[i]) continue;
      why << "  first difference at #" << i << ": model ";
      if (a) why << "offer " << m.refusals[i].first << " at " << m.refusals[i].second;
      why << ", reference ";
      if (b) why << "offer " << r.refusals[i].first << " at " << r.refusals[i].second;
      why << "\n";
      break;
    }
  }
  // Every message once, at the same time in both.
  std::map<std::pair<std::uint32_t, std::uint64_t>, const IciPacket*> ref_by_id;
  for (const IciPacket& p : r.delivered) ref_by_id[{p.src, p.id}] = &p;
  if (m.accepted != r.accepted)
    why << "accepted differ: model " << m.accepted.size() << ", reference " << r.accepted.size() << "\n";
  if (m.delivered.size() != r.delivered.size() || (!m.left_in_flight && m.delivered.size() != m.accepted.size()))
    why << "delivered: model " << m.delivered.size() << ", reference " << r.delivered.size() << " of "
        << m.accepted.size() << "\n";
  std::size_t shown = 0;
  for (const IciPacket& p : m.delivered) {
    const auto it = ref_by_id.find({p.src, p.id});
    if (it == ref_by_id.end()) {
      why << "message " << p.src << ":" << p.id << " not delivered by the reference\n";
      continue;
    }
    const IciPacket& q = *it->second;
    if ((p.inject != q.inject || p.deliver != q.deliver) && shown++ < 8)
      why << "message " << p.src << ":" << p.id << " " << p.src << "->" << p.dst << " " << p.bytes
          << " B: model injected " << p.inject << " delivered " << p.deliver << ", reference injected " << q.inject
          << " delivered " << q.deliver << "\n";
  }
  // Delivery order: the same sequence in both, but for messages delivered at the same picosecond (of
  // different pairs: a pair's order is checked below), which a receiver sees at once.
  if (why.str().empty()) {
    auto order = [](std::vector<IciPacket> v) {
      std::stable_sort(v.begin(), v.end(), [](const IciPacket& a, const IciPacket& b) {
        return a.deliver != b.deliver ? a.deliver < b.deliver : a.src != b.src ? a.src < b.src : a.id < b.id;
      });
      return v;
    };
    const std::vector<IciPacket> a = order(m.delivered), b = order(r.delivered);
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].src != b[i].src || a[i].id != b[i].id) {
        why << "delivery order differs at #" << i << " (time " << a[i].deliver << ")\n";
        break;
      }
    for (std::size_t i = 1; i < m.delivered.size(); ++i)
      if (m.delivered[i].deliver < m.delivered[i - 1].deliver) {
        why << "model: deliveries handed over out of time order at #" << i << "\n";
        break;
      }
  }
  // Invariants of each run.
  test::FabricReference hops_of(s.cfg);
  for (const Outcome* o : {&m, &r}) {
    const char* who = o == &m ? "model" : "reference";
    // Per pair: the ids in the order accepted, and in the order delivered.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint64_t>> sent, got;
    for (std::size_t i : o->accepted) {
      const IciPacket p = packet_of(s, i);
      sent[{p.src, p.dst}].push_back(p.id);
    }
    for (const IciPacket& p : o->delivered) {
      const Time least = zero_load_ps(s.cfg, hops_of.hops(p.src, p.dst), p.bytes);
      if (cov && o == &m) {
        ++cov->messages;
        cov->waited += p.deliver > p.inject + least;
      }
      if (p.deliver < p.inject + least)
        why << who << ": message " << p.src << ":" << p.id << " delivered " << p.deliver - p.inject
            << " ps after injection, below the zero-load " << least << "\n";
      got[{p.src, p.dst}].push_back(p.id);
    }
    // A deadlocked run delivers a pair's first ones only.
    for (const auto& [pair, ids] : got)
      if (ids.size() > sent[pair].size() || !std::equal(ids.begin(), ids.end(), sent[pair].begin()))
        why << who << ": pair " << pair.first << "->" << pair.second << " delivered out of injection order\n";
  }
  return why.str();
}

// The failing scenario with as few messages as still fail (one at a time removed while it fails).
Scenario shrink(Scenario s) {
  for (bool smaller = true; smaller;) {
    smaller = false;
    for (std::size_t i = 0; i < s.offers.size(); ++i) {
      Scenario t = s;
      t.offers.erase(t.offers.begin() + static_cast<std::ptrdiff_t>(i));
      if (!t.offers.empty() && !check(t).empty()) {
        s = std::move(t);
        smaller = true;
        --i;
      }
    }
  }
  return s;
}

std::string check_seed(std::uint64_t seed, bool detail, Coverage* cov = nullptr) {
  const Scenario s = random_scenario(seed);
  std::string why = check(s, cov);
  if (detail && !why.empty()) {
    const Scenario small = shrink(s);
    why += "the same with " + std::to_string(small.offers.size()) + " of its " + std::to_string(s.offers.size()) +
           " messages:\n" + check(small) + describe(small);
  }
  return why;
}

void run_seeds(std::uint64_t first, std::uint64_t count) {
  Coverage cov;
  std::vector<std::uint64_t> failed;
  for (std::uint64_t seed = first; seed < first + count; ++seed)
    if (!check_seed(seed, false, &cov).empty()) failed.push_back(seed);
  std::ostringstream names;
  for (std::size_t i = 0; i < failed.size() && i < 50; ++i) names << " " << failed[i];
  std::ostringstream first_failure;
  if (!failed.empty())
    first_failure << "seed " << failed[0] << " (rerun: MXCOSIM_RANDOM_SEED=" << failed[0]
                  << " MXCOSIM_RANDOM_SEEDS=1 test_ici '[random-fabric]'):\n"
                  << check_seed(failed[0], true);
  INFO(count << " seeds from " << first << ", " << failed.size() << " failed:" << names.str());
  INFO(first_failure.str());
  CHECK(failed.empty());
  // The seeds are meant to load the fabric: many messages wait for links and credits, and full
  // injection queues refuse offers (seeds 1 to 2000: 143 509 messages with the answers, 48 % waited,
  // 35 refusals a message, 3 seeds deadlocked without datelines).
  INFO(cov.messages << " messages, " << cov.waited << " waited, " << cov.refusals << " offers refused, "
                    << cov.deadlocks << " seeds deadlocked");
  if (count >= 100) {
    CHECK(cov.waited * 5 > cov.messages);
    CHECK(cov.refusals * 5 > cov.messages);
  }
}

}  // namespace

TEST_CASE("random fabrics: the packet model against the reference", "[random-fabric]") {
  run_seeds(env_count("MXCOSIM_RANDOM_SEED", 1), env_count("MXCOSIM_RANDOM_SEEDS", 2000));
}

TEST_CASE("random fabrics: many seeds", "[.random-fabric-long]") {
  run_seeds(env_count("MXCOSIM_RANDOM_SEED", 100001), env_count("MXCOSIM_RANDOM_SEEDS", 20000));
}
