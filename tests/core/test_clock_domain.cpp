#include <catch2/catch.hpp>

#include "models/core/clock_domain.h"

using mxc::ClockDomain;

TEST_CASE("clock domain edges are phase plus n periods") {
  ClockDomain clk("tile", 1000, 250);
  CHECK(clk.edge(0) == 250);
  CHECK(clk.edge(3) == 3250);
  CHECK(clk.cycle_at_or_after(0) == 0);
  CHECK(clk.cycle_at_or_after(250) == 0);
  CHECK(clk.cycle_at_or_after(251) == 1);
  CHECK(clk.cycle_at_or_after(1250) == 1);
  CHECK(clk.next_edge(1251) == 2250);
}

TEST_CASE("clock domain from MHz rounds the period to whole picoseconds") {
  CHECK(ClockDomain::from_mhz("hbm", 1000.0).period() == 1000);
  CHECK(ClockDomain::from_mhz("hbm3", 1600.0).period() == 625);  // tCK 0.625 ns
  CHECK(ClockDomain::from_mhz("odd", 940.0).period() == 1064);   // 1063.83 ps
}

TEST_CASE("clock domain rejects a zero period and a non-positive frequency") {
  CHECK_THROWS(ClockDomain("bad", 0));
  CHECK_THROWS(ClockDomain::from_mhz("bad", 0.0));
  CHECK_THROWS(ClockDomain::from_mhz("bad", -5.0));
}
