// The monitor is transparent (the inner target sees the same traffic, the
// sender the same responses) and logs accept and completion times.
#include <catch2/catch.hpp>

#include <cstdint>
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
