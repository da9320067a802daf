// Topology numbering, neighbours, hop counts, snake order and routing.
#include <catch2/catch.hpp>

#include "models/ici/routing.h"
#include "models/ici/topology.h"

using namespace mxc::ici;

TEST_CASE("chips are numbered with dimension 0 fastest") {
  const Topology t({4, 3, 2}, {true});
  CHECK(t.num_chips() == 24);
  CHECK(t.coords(23) == std::vector<std::uint32_t>{3, 2, 1});
  CHECK(t.chip_at({1, 2, 0}) == 9);
  CHECK(t.num_ports() == 6);
}

TEST_CASE("neighbours wrap on a torus and stop at a mesh edge") {
  const Topology torus({4, 4}, {true});
  CHECK(torus.neighbour(3, Topology::port(0, false)) == 0);   // (3,0) -> (0,0)
  CHECK(torus.neighbour(0, Topology::port(1, true)) == 12);   // (0,0) -> (0,3)
  CHECK(torus.is_wrap_link(3, Topology::port(0, false)));
  CHECK_FALSE(torus.is_wrap_link(2, Topology::port(0, false)));
  const Topology mesh({4, 4}, {false});
  CHECK(mesh.neighbour(3, Topology::port(0, false)) == kNoChip);
  CHECK(mesh.neighbour(5, Topology::port(1, false)) == 9);
  const Topology mixed({4, 4}, {true, false});
  CHECK(mixed.neighbour(3, 0) == 0);
  CHECK(mixed.neighbour(12, 2) == kNoChip);
}

TEST_CASE("hop counts take the short way round a ring") {
  const Topology t({8, 4}, {true});
  CHECK(t.hops(0, 7) == 1);
  CHECK(t.hops(0, 4) == 4);
  CHECK(t.hops(0, 8 * 2 + 5) == 3 + 2);
  const Topology m({8}, {false});
  CHECK(m.hops(0, 7) == 7);
}

TEST_CASE("snake order visits every chip once, each step to a neighbour") {
  for (auto dims : {std::vector<std::uint32_t>{4, 4, 4}, std::vector<std::uint32_t>{3, 5},
                    std::vector<std::uint32_t>{6}}) {
    const Topology t(dims, {true});
    const auto order = t.snake_order();
    REQUIRE(order.size() == t.num_chips());
    std::vector<bool> seen(t.num_chips(), false);
    for (std::size_t i = 0; i < order.size(); ++i) {
      CHECK_FALSE(seen[order[i]]);
      seen[order[i]] = true;
      if (i > 0) CHECK(t.hops(order[i - 1], order[i]) == 1);
    }
  }
  const Topology even({4, 4, 4}, {true});
  const auto o = even.snake_order();
  CHECK(even.hops(o.back(), o.front()) == 1);  // even last dimension closes the ring
}

TEST_CASE("dimension-order routing corrects dimension 0 first and switches class at the dateline") {
  const Topology t({4, 4}, {true});
  const DimensionOrderRouter r(t);
  // (3,0) -> (1,1): +x across the wrap (2 hops: 3->0->1), then +y.
  const auto path = r.path(3, 5);
  REQUIRE(path.size() == 3);
  CHECK(path[0] == std::make_pair(3u, Topology::port(0, false)));
  CHECK(path[1] == std::make_pair(0u, Topology::port(0, false)));
  CHECK(path[2] == std::make_pair(1u, Topology::port(1, false)));
  RouteState st;
  CHECK(r.next_hop(3, 5, st).cls == 1);  // the wrap link itself is class 1
  CHECK(r.next_hop(0, 5, st).cls == 1);  // stays 1 in the same dimension
  CHECK(r.next_hop(1, 5, st).cls == 0);  // resets in the next dimension
  // A tie (2 hops either way on a 4-ring) goes plus.
  CHECK(r.path(0, 2).front().second == Topology::port(0, false));
}
