// The event queue pops in (time, insertion order) whichever internal lane or
// heap an event went to; checked against a stable sort of the pushes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "models/ici/event_queue.h"

using namespace mxc;
using namespace mxc::ici;

namespace {
struct Pushed {
  Time time;
  std::uint32_t id;
};
}  // namespace

TEST_CASE("event queue pops by time, ties in insertion order, across lanes and the heap") {
  // More distinct delays than lanes, absolute-time pushes, and a 'now' that
  // sometimes goes back: every path of the queue is taken.
  std::mt19937_64 rng(7);
  const Time delays[] = {0, 5, 7, 7, 100, 2845, 500000, 1000000, 502845};
  EventQueue q;
  std::vector<Pushed> pushed, popped;
  std::uint32_t id = 0;
  Time now = 0;
  for (int round = 0; round < 4000; ++round) {
    const int n = static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      const std::uint64_t r = rng();
      Time t;
      if (r % 10 == 0) {  // absolute time
        t = now + rng() % 3000;
        q.push(t, 0, id);
      } else if (r % 10 == 1) {  // one of many delays (more than the lanes)
        const Time d = 1 + rng() % 40;
        t = now + d;
        q.push_after(now, d, 1, id);
      } else if (r % 10 == 2 && now > 50) {  // an earlier 'now' (still due after the last pop)
        const Time back = now - 50;
        t = back + delays[4 + rng() % 5];
        q.push_after(back, t - back, 2, id);
      } else {
        const Time d = delays[rng() % 9];
        t = now + d;
        q.push_after(now, d, 3, id);
      }
      pushed.push_back({t, id++});
    }
    // Pop everything due up to a later time, as a fabric's advance_to does.
    now += rng() % 200;
    while (!q.empty() && q.next_time() <= now) {
      const Event e = q.pop();
      popped.push_back({e.time, e.a});
    }
  }
  while (!q.empty()) {
    const Event e = q.pop();
    popped.push_back({e.time, e.a});
  }
  std::stable_sort(pushed.begin(), pushed.end(), [](const Pushed& x, const Pushed& y) { return x.time < y.time; });
  REQUIRE(popped.size() == pushed.size());
  for (std::size_t i = 0; i < popped.size(); ++i) {
    INFO("pop " << i);
    REQUIRE(popped[i].time == pushed[i].time);
    REQUIRE(popped[i].id == pushed[i].id);
  }
}
