// BurstQueue (per-bank links, hit counts, bank sets) against a plain list of
// bursts recounted from scratch after every operation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "models/hbm/burst_queue.h"

using namespace mxc::hbm;

namespace {

struct Ref {
  BurstQueue::Index index;
  std::uint32_t bank, row;
  std::uint64_t arrival;
};

bool in_set(std::span<const std::uint64_t> set, std::uint32_t bank) { return (set[bank / 64] >> (bank % 64)) & 1; }

void check_against(BurstQueue& q, const std::vector<Ref>& ref, const std::vector<std::int64_t>& open,
                   std::uint64_t now) {
  const auto banks = static_cast<std::uint32_t>(open.size());
  REQUIRE(q.size() == ref.size());
  // Arrival order.
  BurstQueue::Index i = q.front();
  for (const Ref& r : ref) {
    REQUIRE(i == r.index);
    CHECK(q[i].bank == r.bank);
    CHECK(q[i].row == r.row);
    i = q.next(i);
  }
  CHECK(i == BurstQueue::kNone);
  std::size_t total = 0;
  for (std::uint32_t b = 0; b < banks; ++b) {
    std::vector<BurstQueue::Index> mine;
    std::uint32_t hits = 0;
    for (const Ref& r : ref)
      if (r.bank == b) {
        mine.push_back(r.index);
        hits += static_cast<std::int64_t>(r.row) == open[b];
      }
    total += hits;
    INFO("bank " << b);
    CHECK(q.hits(b) == hits);
    CHECK(in_set(q.hit_banks(), b) == (hits > 0));
    CHECK(in_set(q.miss_banks(), b) == (hits < mine.size()));
    // The bank's own order.
    BurstQueue::Index j = q.bank_front(b);
    for (const BurstQueue::Index k : mine) {
      REQUIRE(j == k);
      j = q.bank_next(j);
    }
    CHECK(j == BurstQueue::kNone);
    // The scheduler's candidate: the oldest hit, else the oldest burst.
    BurstQueue::Index want = mine.empty() ? BurstQueue::kNone : mine.front();
    for (const BurstQueue::Index k : mine)
      if (static_cast<std::int64_t>(q[k].row) == open[b]) {
        want = k;
        break;
      }
    const BurstQueue::Candidate& c = q.candidate(b);
    REQUIRE(c.index == want);
    if (want != BurstQueue::kNone) {
      CHECK(c.arrival == q[want].arrival);
      CHECK(c.order == (q[want].seq << 16 | b));
      CHECK(BurstQueue::bank_of_order(c.order) == b);
    }
  }
  CHECK(q.total_hits() == total);
  std::uint64_t pending = ~std::uint64_t{0};
  for (const Ref& r : ref)
    if (r.arrival > now) {
      pending = r.arrival;
      break;
    }
  CHECK(q.first_pending_arrival(now) == pending);
}

}  // namespace

TEST_CASE("the burst queue keeps arrival order, bank order and hit counts as a recount finds them") {
  for (const std::uint32_t banks : {16u, 80u}) {  // one word of bank bits, and two
    INFO(banks << " banks");
    std::mt19937_64 rng(banks);
    BurstQueue q(banks);
    std::vector<Ref> ref;
    std::vector<std::int64_t> open(banks, -1);
    std::uint64_t now = 0, last_arrival = 0;
    for (int step = 0; step < 4000; ++step) {
      const unsigned op = rng() % 10;
      if (op < 4 && ref.size() < 64) {
        // Few rows per bank, so hits and misses mix.
        const auto bank = static_cast<std::uint32_t>(rng() % banks);
        const auto row = static_cast<std::uint32_t>(rng() % 3);
        const std::uint64_t arrival = now + rng() % 4;
        const bool hit = open[bank] == static_cast<std::int64_t>(row);
        const BurstQueue::Index i = q.push_back(bank, row, arrival, hit);
        // Arrivals never decrease along the queue.
        last_arrival = std::max(last_arrival, arrival);
        CHECK(q[i].arrival == last_arrival);
        REQUIRE(q.back() == i);
        ref.push_back({q.back(), bank, row, last_arrival});
      } else if (op < 7) {
        // An arrived row hit leaves (any one, as FR-FCFS may serve any).
        std::vector<std::size_t> hits;
        for (std::size_t k = 0; k < ref.size(); ++k)
          if (static_cast<std::int64_t>(ref[k].row) == open[ref[k].bank] && ref[k].arrival <= now) hits.push_back(k);
        if (hits.empty()) continue;
        const std::size_t k = hits[rng() % hits.size()];
        q.erase_hit(ref[k].index);
        ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(k));
      } else if (op < 8) {
        const auto bank = static_cast<std::uint32_t>(rng() % banks);
        open[bank] = static_cast<std::int64_t>(rng() % 3);
        q.row_opened(bank, static_cast<std::uint32_t>(open[bank]));
      } else if (op < 9) {
        const auto bank = static_cast<std::uint32_t>(rng() % banks);
        open[bank] = -1;
        q.row_closed(bank);
      } else if (rng() % 8 == 0) {
        std::fill(open.begin(), open.end(), -1);
        q.all_closed();
      }
      now += rng() % 2;
      check_against(q, ref, open, now);
    }
  }
}
