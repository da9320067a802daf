// BlockMt64 gives the numbers of std::mt19937_64, whether drawn one by one
// or as runs of failed Bernoulli trials, across block boundaries.
#include <catch2/catch.hpp>
#include <random>

#include "models/ici/block_mt64.h"

using namespace mxc::ici;

TEST_CASE("BlockMt64 draws the numbers of std::mt19937_64") {
  for (std::uint64_t seed : {0ull, 1ull, 7ull, 0x9E3779B97F4A7C15ull + 63, ~0ull}) {
    INFO("seed " << seed);
    std::mt19937_64 ref(seed);
    BlockMt64 rng(seed);
    for (int i = 0; i < 2000; ++i) REQUIRE(rng() == ref());
  }
}

TEST_CASE("BlockMt64 counts failed Bernoulli trials as a draw-by-draw loop does") {
  std::mt19937_64 ref(3);
  BlockMt64 rng(3);
  const std::uint64_t thresholds[] = {~0ull, 0x8000000000000000ull, 0x1999999999999999ull, 0x0040000000000000ull};
  for (int round = 0; round < 4000; ++round) {
    const std::uint64_t t = thresholds[round % 4];
    std::uint64_t n = 0;
    while (ref() >= t) ++n;
    REQUIRE(rng.count_at_least(t) == n);
    REQUIRE(rng() == ref());  // and the draws stay in step
  }
}

TEST_CASE("BlockMt64 stops counting failed trials at a limit, one draw per trial") {
  std::mt19937_64 ref(5);
  BlockMt64 rng(5);
  // Threshold 0: no trial succeeds, so without the limit the count never ends.
  for (std::uint64_t limit : {0ull, 1ull, 311ull, 312ull, 1000ull}) {
    INFO("limit " << limit);
    REQUIRE(rng.count_at_least(0, limit) == limit);
    for (std::uint64_t i = 0; i < limit; ++i) ref();
    REQUIRE(rng() == ref());
  }
  // A success before the limit: the count of the draw-by-draw loop.
  const std::uint64_t t = 0x0040000000000000ull;  // 1/64
  for (int round = 0; round < 2000; ++round) {
    std::uint64_t n = 0;
    while (ref() >= t && ++n < 100) {
    }
    const std::uint64_t got = rng.count_at_least(t, 100);
    REQUIRE(got == n);
    REQUIRE(rng() == ref());
  }
}
