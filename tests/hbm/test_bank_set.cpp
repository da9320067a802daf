// for_each_bank_of (one-word sets take a path of their own) and
// RefreshPolicy::unblocked (blocks() a word at a time) against plain
// per-bank loops.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "models/hbm/bank_set.h"
#include "models/hbm/refresh_policy.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc::hbm;

namespace {

bool in_set(const std::vector<std::uint64_t>& set, std::uint32_t bank) { return (set[bank / 64] >> (bank % 64)) & 1; }

}  // namespace

TEST_CASE("for_each_bank_of visits the banks of a combined set in order and stops when asked") {
  std::mt19937_64 rng(5);
  for (const std::uint32_t banks : {16u, 64u, 80u, 200u}) {  // one word, and several
    const std::size_t words = (banks + 63) / 64;
    for (int round = 0; round < 200; ++round) {
      std::vector<std::uint64_t> a(words), b(words);
      for (std::size_t w = 0; w < words; ++w) {
        const std::uint64_t valid = banks - w * 64 >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (banks - w * 64)) - 1;
        a[w] = rng() & valid;
        b[w] = rng() & valid;
      }
      std::vector<std::uint32_t> want;
      for (std::uint32_t k = 0; k < banks; ++k)
        if (in_set(a, k) && !in_set(b, k)) want.push_back(k);
      const std::size_t stop = want.empty() ? 0 : rng() % want.size();  // f returns false at this visit
      std::vector<std::uint32_t> got;
      for_each_bank_of(words, [&](std::size_t w) { return a[w] & ~b[w]; },
                       [&](std::uint32_t k) {
                         got.push_back(k);
                         return got.size() != stop + 1;
                       });
      if (!want.empty()) want.resize(stop + 1);
      INFO(banks << " banks, round " << round);
      REQUIRE(got == want);
    }
  }
}

TEST_CASE("RefreshPolicy::unblocked removes exactly the banks blocks() names") {
  const MemoryConfig cfg = test::preset("hbm2.yaml");
  for (const std::uint32_t banks : {16u, 80u}) {
    const std::size_t words = (banks + 63) / 64;
    const std::vector<std::uint64_t> all(words, ~std::uint64_t{0});
    for (const RefreshMode mode : {RefreshMode::kNone, RefreshMode::kAllBank, RefreshMode::kPerBank}) {
      RefreshPolicy refresh(mode, cfg.device.t, banks);  // postpones nothing
      std::uint64_t postponed = 0;
      // Before and after refresh falls due; per-bank refresh then moves on
      // to the next bank after each REFsb.
      for (std::uint32_t k = 0; k < 2 * banks + 2; ++k) {
        const std::uint64_t cycle = refresh.next_due() == kNoCycle ? 1000 : refresh.next_due() + (k % 2 ? 0 : 5);
        if (k % 2) refresh.update(cycle, true, postponed);
        for (std::uint32_t b = 0; b < banks; ++b) {
          INFO("mode " << static_cast<int>(mode) << ", bank " << b << ", step " << k);
          REQUIRE(((refresh.unblocked(all, b / 64) >> (b % 64)) & 1) == !refresh.blocks(b));
        }
        if (refresh.pending()) refresh.on_issue(mode == RefreshMode::kAllBank ? Cmd::kRefAb : Cmd::kRefSb, cycle);
      }
    }
  }
}
