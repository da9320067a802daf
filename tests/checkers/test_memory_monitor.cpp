// The monitor is transparent (the inner target sees the same traffic, the
// sender the same responses) and logs accept and completion times.
#include <catch2/catch.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bridge/memory_monitor.h"
#include "models/core/ideal_memory.h"

using namespace mxc;

TEST_CASE("monitor logs accepted requests with their completion and forwards responses", "[monitor]") {
  IdealMemory mem("mem", 100, 2);  // 100 ps latency, two in flight
  MemoryMonitor mon(mem);
  CHECK(mon.name() == "mem.monitor");
  std::vector<MemResponse> seen;
  mon.set_completion([&](const MemResponse& r) { seen.push_back(r); });

  MemRequest w = MemRequest::make_write(7, 0x1000, {1, 2, 3, 4});
  w.source = 2;
  w.issue = 5;
  REQUIRE(mon.send(w, 10));
  MemRequest r = MemRequest::make_read(8, 0x1000, 4);
  r.source = 2;
  r.issue = 20;
  REQUIRE(mon.send(r, 30));
  // Full: refused, and a refusal is not logged.
  MemRequest r2 = MemRequest::make_read(9, 0x2000, 64);
  CHECK_FALSE(mon.can_accept(r2));
  CHECK_FALSE(mon.send(r2, 30));
  REQUIRE(mon.log().size() == 2);
  CHECK(mon.outstanding() == 2);
  CHECK(mon.log()[0].complete == kNever);

  CHECK(mon.next_event_time() == 110);  // accepted at 10 + 100 ps
  mon.advance_to(110);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].id == 7);
  REQUIRE(mon.send(r2, 120));
  mon.advance_to(1000);
  REQUIRE(seen.size() == 3);
  CHECK(seen[1].data == std::vector<std::uint8_t>{1, 2, 3, 4});  // the read saw the write through the monitor
  CHECK(mon.next_event_time() == kNever);
  CHECK(mon.outstanding() == 0);
  CHECK(mon.unmatched_completions() == 0);

  const auto& log = mon.log();
  REQUIRE(log.size() == 3);
  CHECK(log[0].id == 7);
  CHECK(log[0].source == 2);
  CHECK(log[0].addr == 0x1000);
  CHECK(log[0].bytes == 4);
  CHECK(log[0].write);
  CHECK(log[0].issue == 5);
  CHECK(log[0].accept == 10);
  CHECK(log[0].complete == 110);
  CHECK_FALSE(log[1].write);
  CHECK(log[1].accept == 30);
  CHECK(log[1].complete == 130);
  CHECK(log[2].id == 9);
  CHECK(log[2].accept == 120);
  CHECK(log[2].complete == 220);
}

TEST_CASE("monitor back door reaches the inner target", "[monitor]") {
  IdealMemory mem("mem", 1);
  MemoryMonitor mon(mem, "watch");
  CHECK(mon.name() == "watch");
  const std::uint8_t in[3] = {9, 8, 7};
  mon.backdoor_write(0x40, in);
  std::uint8_t out[3] = {};
  mem.backdoor_read(0x40, out);
  CHECK(out[2] == 7);
  std::uint8_t again[3] = {};
  mon.backdoor_read(0x40, again);
  CHECK(again[0] == 9);
}

TEST_CASE("a reused id completes the oldest outstanding request with it", "[monitor]") {
  IdealMemory mem("mem", 50);
  MemoryMonitor mon(mem);
  REQUIRE(mon.send(MemRequest::make_read(1, 0x0, 8), 0));
  REQUIRE(mon.send(MemRequest::make_read(1, 0x8, 8), 20));
  mon.advance_to(50);
  CHECK(mon.log()[0].complete == 50);
  CHECK(mon.log()[1].complete == kNever);
  mon.advance_to(70);
  CHECK(mon.log()[1].complete == 70);
}

TEST_CASE("requests sharing an id complete in sending order, between others, and the id can be used again",
          "[monitor]") {
  // Ideal memory: each completes 50 ps after it was sent, in sending order,
  // so entry k completes at its own send time + 50.
  IdealMemory mem("mem", 50);
  MemoryMonitor mon(mem);
  const std::uint64_t ids[] = {7, 7, 3, 7, 3};
  for (std::size_t k = 0; k < 5; ++k) REQUIRE(mon.send(MemRequest::make_read(ids[k], 0x40 * k, 8), 10 * k));
  CHECK(mon.outstanding() == 5);
  for (Time t = 50; t <= 90; t += 10) mon.advance_to(t);
  for (std::size_t k = 0; k < 5; ++k) {
    INFO("entry " << k);
    CHECK(mon.log()[k].complete == 10 * k + 50);
  }
  CHECK(mon.outstanding() == 0);
  REQUIRE(mon.send(MemRequest::make_read(7, 0x400, 8), 100));
  mon.advance_to(150);
  CHECK(mon.log()[5].complete == 150);
  CHECK(mon.unmatched_completions() == 0);
}

namespace {

// Completes whichever accepted request the test names, in any order.
class ManualMemory final : public MemoryTarget {
 public:
  std::string name() const override { return "manual"; }
  Time next_event_time() const override { return kNever; }
  void advance_to(Time) override {}
  bool can_accept(const MemRequest&) const override { return true; }
  bool send(const MemRequest& req, Time) override {
    m_pending.push_back(req);
    return true;
  }
  void backdoor_write(std::uint64_t, std::span<const std::uint8_t>) override {}
  void backdoor_read(std::uint64_t, std::span<std::uint8_t>) const override {}

  std::size_t pending() const { return m_pending.size(); }
  /// Completes the i-th pending request at `t`.
  void finish(std::size_t i, Time t) {
    const MemRequest req = m_pending[i];
    m_pending.erase(m_pending.begin() + static_cast<std::ptrdiff_t>(i));
    MemResponse r;
    r.id = req.id;
    r.source = req.source;
    r.addr = req.addr;
    r.complete = t;
    complete(r);
  }

 private:
  std::vector<MemRequest> m_pending;
};

}  // namespace

TEST_CASE("with ids that share ring slots, each completion goes to the oldest outstanding request with its key",
          "[monitor]") {
  // Ids 5, 261, 517 share a slot of the monitor's 256-slot ring, as do 0 and 256;
  // two sources reuse the same ids. The expectation is kept independently: per
  // key, the log indices of its outstanding requests, oldest first.
  ManualMemory mem;
  MemoryMonitor mon(mem);
  std::mt19937_64 rng(11);
  const std::uint64_t ids[] = {5, 261, 517, 0, 256, 7};
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::deque<std::size_t>> outstanding;
  std::vector<Time> want_complete;
  Time t = 0;
  for (int step = 0; step < 4000; ++step) {
    ++t;
    if (mem.pending() == 0 || (mem.pending() < 40 && rng() % 2 == 0)) {
      MemRequest req = MemRequest::make_read(ids[rng() % 6], 0x40 * want_complete.size(), 8);
      req.source = static_cast<std::uint32_t>(rng() % 2);
      REQUIRE(mon.send(req, t));
      outstanding[{req.source, req.id}].push_back(want_complete.size());
      want_complete.push_back(kNever);
    } else {
      // The memory completes a random pending request; the monitor learns only its key.
      const std::size_t i = rng() % mem.pending();
      MemResponse seen;
      mon.set_completion([&](const MemResponse& r) { seen = r; });
      mem.finish(i, t);
      auto& q = outstanding[{seen.source, seen.id}];
      REQUIRE_FALSE(q.empty());
      want_complete[q.front()] = t;
      q.pop_front();
    }
  }
  REQUIRE(mon.log().size() == want_complete.size());
  for (std::size_t k = 0; k < want_complete.size(); ++k) {
    INFO("log entry " << k);
    REQUIRE(mon.log()[k].complete == want_complete[k]);
  }
  CHECK(mon.outstanding() == mem.pending());
  CHECK(mon.unmatched_completions() == 0);
}

TEST_CASE("monitor logs each write's byte mask: which bytes its strobes enable", "[monitor]") {
  IdealMemory mem("mem", 100, 8);
  MemoryMonitor mon(mem);
  const auto mask = [](std::initializer_list<int> enabled) {
    std::vector<bool> m(8, false);
    for (int i : enabled) m[static_cast<std::size_t>(i)] = true;
    return m;
  };
  const auto send = [&](std::uint64_t id, std::vector<bool> enable, bool write = true) {
    MemRequest r = write ? MemRequest::make_write(id, 0x100, std::vector<std::uint8_t>(8, 0x55))
                         : MemRequest::make_read(id, 0x100, 8);
    r.byte_enable = std::move(enable);
    REQUIRE(mon.send(r, 10));
    return mon.log().back().byte_mask;
  };
  // No mask and an all-ones mask write the same bytes: both are "every byte".
  CHECK(send(1, {}) == 0);
  CHECK(send(2, std::vector<bool>(8, true)) == 0);
  // The first half: 4 disabled bytes in the top 16 bits, and not 0.
  const std::uint64_t low = send(3, mask({0, 1, 2, 3}));
  CHECK(low >> 48 == 4);
  CHECK((low & 0xffff'ffff'ffffULL) != 0);
  // The same mask again gives the same word; the other half, as many bytes, another.
  CHECK(send(4, mask({0, 1, 2, 3})) == low);
  const std::uint64_t high = send(5, mask({4, 5, 6, 7}));
  CHECK(high >> 48 == 4);
  CHECK(high != low);
  // One byte short of the first half: 5 disabled.
  CHECK(send(6, mask({0, 1, 2})) >> 48 == 5);
  CHECK(describe_byte_mask(0, 32) == "all 32 bytes");
  CHECK(describe_byte_mask(low, 8).rfind("4 of 8 bytes (mask digest 0x", 0) == 0);
}
