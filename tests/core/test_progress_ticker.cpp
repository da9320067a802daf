// The progress ticker: reports and stop looks on every stride-th tick only,
// with the tick count and the time of that tick.
#include <catch2/catch.hpp>

#include <atomic>
#include <utility>
#include <vector>

#include "models/core/progress.h"

using namespace mxc;

TEST_CASE("a progress ticker looks at every stride-th tick with that tick's count and time") {
  std::vector<std::pair<Time, std::uint64_t>> reports;
  std::atomic<bool> stop{false};
  const ProgressReport p{.report = [&](Time now, std::uint64_t ticks) { reports.emplace_back(now, ticks); },
                         .interval_seconds = 0,
                         .stop = &stop};
  ProgressTicker<4> ticker(p);
  for (Time t = 1; t <= 11; ++t) CHECK_FALSE(ticker.tick(100 * t));  // clear: never a stop
  REQUIRE(reports.size() == 2);
  CHECK(reports[0] == std::pair<Time, std::uint64_t>{400, 4});
  CHECK(reports[1] == std::pair<Time, std::uint64_t>{800, 8});
  // Set between looks: seen at the next look, after its report, and not before.
  stop = true;
  CHECK(ticker.tick(1200));
  CHECK(reports.size() == 3);
  CHECK_FALSE(ticker.tick(1300));
}

TEST_CASE("a report may set the stop flag that its own look then sees") {
  std::atomic<bool> stop{false};
  int seen = 0;
  const ProgressReport p{.report = [&](Time, std::uint64_t) { stop = ++seen == 2; },
                         .interval_seconds = 0,
                         .stop = &stop};
  ProgressTicker<2> ticker(p);
  CHECK_FALSE(ticker.tick(1));
  CHECK_FALSE(ticker.tick(2));  // first report
  CHECK_FALSE(ticker.tick(3));
  CHECK(ticker.tick(4));  // the second report sets it
}

TEST_CASE("an unwatched ticker never stops and a watched one reports an interval after its start") {
  const ProgressReport none;
  ProgressTicker<1> quiet(none);
  for (Time t = 0; t < 100; ++t) CHECK_FALSE(quiet.tick(t));
  // The first report comes an interval after the start: none in a loop quicker than that.
  int reports = 0;
  const ProgressReport slow{.report = [&](Time, std::uint64_t) { ++reports; }, .interval_seconds = 3600};
  ProgressTicker<1> hourly(slow);
  for (Time t = 0; t < 100; ++t) CHECK_FALSE(hourly.tick(t));
  CHECK(reports == 0);
}
