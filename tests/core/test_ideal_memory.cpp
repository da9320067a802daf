#include <catch2/catch.hpp>

#include "models/core/ideal_memory.h"

using namespace mxc;

TEST_CASE("ideal memory completes each request its latency after acceptance") {
  IdealMemory mem("mem", 5000, 2);
  std::vector<MemResponse> done;
  mem.set_completion([&](const MemResponse& r) { done.push_back(r); });

  const auto w = MemRequest::make_write(1, 64, {1, 2, 3, 4});
  const auto r = MemRequest::make_read(2, 64, 4);
  REQUIRE(mem.send(w, 1000));
  REQUIRE(mem.send(r, 2000));
  CHECK_FALSE(mem.can_accept(r));  // two outstanding, limit 2
  CHECK_FALSE(mem.send(MemRequest::make_read(3, 0, 4), 2000));

  CHECK(mem.next_event_time() == 6000);
  mem.advance_to(6000);
  REQUIRE(done.size() == 1);
  CHECK(done[0].id == 1);
  CHECK(done[0].accept == 1000);
  CHECK(done[0].complete == 6000);
  CHECK(mem.next_event_time() == 7000);
  mem.advance_to(7000);
  REQUIRE(done.size() == 2);
  CHECK(done[1].data == std::vector<std::uint8_t>{1, 2, 3, 4});
  CHECK(mem.next_event_time() == kNever);
}

TEST_CASE("ideal memory rejects a write whose data length disagrees with its size") {
  IdealMemory mem("mem", 1000);
  auto bad = MemRequest::make_write(1, 0, {1});
  bad.bytes = 8;
  CHECK_THROWS(mem.send(bad, 0));
}

TEST_CASE("a request offered at a completion time finds its room free, whether or not the memory ran that time") {
  // The kernel may run a requester before the memory at a tie, or after (a
  // completion at t wakes the requester at t): both must see one memory.
  for (const bool memory_first : {false, true}) {
    INFO("memory run first at the tie: " << memory_first);
    IdealMemory mem("mem", 5000, 1);
    std::vector<MemResponse> done;
    mem.set_completion([&](const MemResponse& r) { done.push_back(r); });
    REQUIRE(mem.send(MemRequest::make_read(1, 0, 4), 1000));  // completes at 6000
    CHECK_FALSE(mem.send(MemRequest::make_read(2, 0, 4), 5999));
    if (memory_first) mem.advance_to(6000);
    CHECK(mem.send(MemRequest::make_read(2, 0, 4), 6000));
    CHECK_FALSE(mem.send(MemRequest::make_read(3, 0, 4), 6000));  // request 2 holds the one place
    mem.advance_to(6000);
    REQUIRE(done.size() == 1);
    CHECK(done[0].id == 1);
    CHECK(mem.next_event_time() == 11000);
    mem.advance_to(11000);
    REQUIRE(done.size() == 2);
    CHECK(done[1].accept == 6000);
  }
}

TEST_CASE("at zero latency a request's place is free again at once") {
  IdealMemory mem("mem", 0, 1);
  std::vector<std::uint64_t> done;
  mem.set_completion([&](const MemResponse& r) { done.push_back(r.id); });
  for (std::uint64_t id = 1; id <= 3; ++id) CHECK(mem.send(MemRequest::make_read(id, 0, 4), 100));
  mem.advance_to(100);
  CHECK(done == std::vector<std::uint64_t>{1, 2, 3});
}
