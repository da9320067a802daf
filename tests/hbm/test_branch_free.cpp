// select() (branch_free.h) against the conditional operator, for every
// width and enum the model passes it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>

#include "models/hbm/branch_free.h"
#include "models/hbm/hbm_command.h"
#include "models/hbm/queue_entry.h"
#include "models/hbm/timing_table.h"

using namespace mxc::hbm;

namespace {

template <class T>
void check_width(std::mt19937_64& rng) {
  for (int i = 0; i < 1000; ++i) {
    const T a = static_cast<T>(rng()), b = static_cast<T>(rng());
    const bool take = rng() & 1;
    INFO("a " << +a << ", b " << +b << ", take " << take);
    REQUIRE(select(take, a, b) == (take ? a : b));
  }
  // The extremes, where a mask that is off by one would show.
  const T ones = static_cast<T>(~T{0});
  CHECK(select(true, ones, T{0}) == ones);
  CHECK(select(false, ones, T{0}) == T{0});
  CHECK(select(true, T{0}, ones) == T{0});
  CHECK(select(false, T{0}, ones) == ones);
}

}  // namespace

TEST_CASE("select picks its first value when asked, else its second") {
  std::mt19937_64 rng(11);
  check_width<std::uint8_t>(rng);
  check_width<std::uint16_t>(rng);
  check_width<std::uint32_t>(rng);
  check_width<std::uint64_t>(rng);
  for (int c = 0; c < kNumCmds; ++c) {
    const Cmd x = static_cast<Cmd>(c), y = static_cast<Cmd>((c + 3) % kNumCmds);
    CHECK(select(true, x, y) == x);
    CHECK(select(false, x, y) == y);
  }
  CHECK(select(true, Constraint::kFAW, Constraint::kCmdBus) == Constraint::kFAW);
  CHECK(select(false, Constraint::kFAW, Constraint::kCmdBus) == Constraint::kCmdBus);
  CHECK(select(true, RowOutcome::kHit, RowOutcome::kConflict) == RowOutcome::kHit);
  CHECK(select(false, RowOutcome::kHit, RowOutcome::kConflict) == RowOutcome::kConflict);
}
