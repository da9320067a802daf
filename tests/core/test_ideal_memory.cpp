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
