// advance_until_space: a driver holding packets at a full source is woken
// when the first message leaves that source's injection queue.
#include <catch2/catch.hpp>

#include "models/ici/torus_fabric.h"

using namespace mxc;
using namespace mxc::ici;

namespace {
IciConfig two_messages_queue() {
  IciConfig c;
  c.dims = {4};
  c.wrap = {true};
  c.link_gbps = 50.0;  // 20 ps per byte
  c.link_latency_ps = 300'000;
  c.router_latency_ps = 200'000;
  c.max_payload_bytes = 1024;
  c.header_bytes = 64;
  c.injection_queue = 2;
  return c;
}

IciPacket msg(std::uint32_t src, std::uint32_t dst, std::uint32_t bytes) {
  IciPacket p;
  p.src = src;
  p.dst = dst;
  p.bytes = bytes;
  return p;
}
}  // namespace

TEST_CASE("advance_until_space stops when a full injection queue gets space") {
  TorusFabric f(two_messages_queue());
  // Two messages fill chip 0's queue. The first is routed after the router
  // latency and leaves when its second (last) wire packet starts on the idle
  // link: 200 ns + 1088 B * 20 ps = 221.76 ns.
  REQUIRE(f.inject(msg(0, 1, 2048), 0));
  REQUIRE(f.inject(msg(0, 1, 64), 0));
  CHECK_FALSE(f.can_inject(msg(0, 1, 64)));
  const Time t = f.advance_until_space(10'000'000);
  CHECK(t == 200'000 + 1088 * 20);
  CHECK(f.can_inject(msg(0, 1, 64)));
}

TEST_CASE("advance_until_space runs to the limit when no full queue gets space") {
  TorusFabric f(two_messages_queue());
  REQUIRE(f.inject(msg(0, 1, 64), 0));  // one of two slots: the queue is not full
  CHECK(f.advance_until_space(10'000'000) == 10'000'000);
  CHECK(f.in_flight() == 0);  // delivered before the limit
}
