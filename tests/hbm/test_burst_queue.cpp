// BurstQueue (per-bank links, hit counts, bank sets, runs of bursts in one
// entry) against a plain list of bursts recounted from scratch after every
// operation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "models/hbm/burst_queue.h"

using namespace mxc::hbm;

namespace {

// One burst; the bursts of a run share their entry's index.
struct Ref {
  BurstQueue::Index index;
  std::uint32_t bank, row;
  std::uint64_t arrival;
  std::uint64_t seq;
  std::uint32_t col;
};

// The bursts of the queue in arrival order, each entry's run expanded:
// entry i stands for bursts seq, seq + 1, ... at columns col, col + 1, ...
template <class Next>
std::vector<Ref> expand(const BurstQueue& q, BurstQueue::Index first, Next next) {
  std::vector<Ref> out;
  for (BurstQueue::Index i = first; i != BurstQueue::kNone; i = next(i))
    for (std::uint32_t k = 0; k < q[i].run; ++k)
      out.push_back({i, q[i].bank, q[i].row, q[i].arrival, q[i].seq + k, q[i].col + k});
  return out;
}

bool in_set(std::span<const std::uint64_t> set, std::uint32_t bank) { return (set[bank / 64] >> (bank % 64)) & 1; }

void check_against(BurstQueue& q, const std::vector<Ref>& ref, const std::vector<std::int64_t>& open,
                   std::uint64_t now) {
  const auto banks = static_cast<std::uint32_t>(open.size());
  REQUIRE(q.size() == ref.size());
  // Arrival order.
  const std::vector<Ref> queued = expand(q, q.front(), [&](BurstQueue::Index i) { return q.next(i); });
  REQUIRE(queued.size() == ref.size());
  for (std::size_t k = 0; k < ref.size(); ++k) {
    INFO("burst " << k);
    REQUIRE(queued[k].index == ref[k].index);
    CHECK(queued[k].bank == ref[k].bank);
    CHECK(queued[k].row == ref[k].row);
    CHECK(queued[k].arrival == ref[k].arrival);
    CHECK(queued[k].seq == ref[k].seq);
    CHECK(queued[k].col == ref[k].col);
  }
  std::size_t total = 0;
  for (std::uint32_t b = 0; b < banks; ++b) {
    std::vector<Ref> mine;
    std::uint32_t hits = 0;
    for (const Ref& r : ref)
      if (r.bank == b) {
        mine.push_back(r);
        hits += static_cast<std::int64_t>(r.row) == open[b];
      }
    total += hits;
    INFO("bank " << b);
    CHECK(q.hits(b) == hits);
    CHECK(in_set(q.hit_banks(), b) == (hits > 0));
    CHECK(in_set(q.miss_banks(), b) == (hits < mine.size()));
    // The bank's own order.
    const std::vector<Ref> listed = expand(q, q.bank_front(b), [&](BurstQueue::Index i) { return q.bank_next(i); });
    REQUIRE(listed.size() == mine.size());
    for (std::size_t k = 0; k < mine.size(); ++k) CHECK(listed[k].seq == mine[k].seq);
    // The scheduler's candidate: the oldest hit, else the oldest burst.
    const Ref* want = mine.empty() ? nullptr : &mine.front();
    for (const Ref& r : mine)
      if (static_cast<std::int64_t>(r.row) == open[b]) {
        want = &r;
        break;
      }
    const BurstQueue::Candidate& c = q.candidate(b);
    REQUIRE(c.index == (want ? want->index : BurstQueue::kNone));
    if (want) {
      CHECK(c.arrival == want->arrival);
      CHECK(c.order == (want->seq << 16 | b));
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
    std::uint64_t now = 0, last_arrival = 0, seq = 0;
    for (int step = 0; step < 4000; ++step) {
      const unsigned op = rng() % 10;
      if (op < 4 && ref.size() < 64) {
        // Few rows per bank, so hits and misses mix; runs of 1 to 3 bursts.
        const auto bank = static_cast<std::uint32_t>(rng() % banks);
        const auto row = static_cast<std::uint32_t>(rng() % 3);
        const auto run = static_cast<std::uint16_t>(1 + rng() % 3);
        const auto col = static_cast<std::uint16_t>(rng() % 32);
        const std::uint64_t arrival = now + rng() % 4;
        const bool hit = open[bank] == static_cast<std::int64_t>(row);
        const BurstQueue::Index i = q.push_back(bank, row, arrival, hit, run);
        q[i].col = col;  // the caller's part
        // Arrivals never decrease along the queue.
        last_arrival = std::max(last_arrival, arrival);
        CHECK(q[i].arrival == last_arrival);
        REQUIRE(q.back() == i);
        for (std::uint32_t k = 0; k < run; ++k) ref.push_back({q.back(), bank, row, last_arrival, seq++, col + k});
      } else if (op < 7) {
        // An arrived row hit leaves: any one that leads its run (as FR-FCFS
        // may serve any bank's oldest hit, and no other burst of a run).
        std::vector<std::size_t> hits;
        for (std::size_t k = 0; k < ref.size(); ++k)
          if (static_cast<std::int64_t>(ref[k].row) == open[ref[k].bank] && ref[k].arrival <= now &&
              (k == 0 || ref[k - 1].index != ref[k].index))
            hits.push_back(k);
        if (hits.empty()) continue;
        const std::size_t k = hits[rng() % hits.size()];
        const BurstQueue::Index i = ref[k].index;
        // Make the burst look served, as the controller would have left it.
        q[i].outcome = RowOutcome::kConflict;
        q[i].waiting_since = q[i].arrival + 7;
        const bool more = k + 1 < ref.size() && ref[k + 1].index == i;
        q.erase_hit(i);
        ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(k));
        if (more) {
          // The run's next burst now leads the entry, as if just queued.
          CHECK(q[i].outcome == RowOutcome::kUnknown);
          CHECK(q[i].waiting_since == q[i].arrival);
        }
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

TEST_CASE("a run's next burst is the oldest burst once the first leaves, bypassed by nobody yet") {
  BurstQueue q(16);
  const BurstQueue::Index run = q.push_back(3, 7, 10, true, 2);
  const BurstQueue::Index other = q.push_back(5, 1, 10, true);
  REQUIRE(q.front() == run);
  REQUIRE(q.size() == 3);
  q.bypass_front();
  q.bypass_front();
  REQUIRE(q.front_bypassed() == 2);
  q.erase_hit(run);  // the run's first burst: the entry stays, one burst younger
  CHECK(q.front() == run);
  CHECK(q.front_bypassed() == 0);
  CHECK(q.size() == 2);
  CHECK(q.hits(3) == 1);
  CHECK(q.candidate(3).order == BurstQueue::order_of(1, 3));
  q.erase_hit(run);  // and its last: the entry goes
  CHECK(q.front() == other);
  CHECK(q.candidate(3).index == BurstQueue::kNone);
  CHECK(q.size() == 1);
}
