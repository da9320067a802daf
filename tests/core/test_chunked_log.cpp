#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/core/chunked_log.h"

using mxc::ChunkedLog;

namespace {

struct Entry {
  std::uint64_t a = 0;
  std::uint32_t b = 0;
  bool c = false;
};

// A log of n entries holds exactly what a vector given the same appends holds.
void require_same(const ChunkedLog<Entry>& log, const std::vector<Entry>& want) {
  REQUIRE(log.size() == want.size());
  std::size_t i = 0;
  for (const Entry& e : log) {  // iteration visits every element in order
    REQUIRE(e.a == want[i].a);
    REQUIRE(e.b == want[i].b);
    REQUIRE(e.c == want[i].c);
    REQUIRE(&log[i] == &e);
    ++i;
  }
  REQUIRE(i == want.size());
}

}  // namespace

TEST_CASE("a chunked log keeps appends in order across several chunks") {
  constexpr std::size_t kChunk = ChunkedLog<Entry>::kChunk;
  static_assert(kChunk == 4096);  // the largest power of two with 16-byte entries in 64 KiB
  ChunkedLog<Entry> log;
  std::vector<Entry> want;
  CHECK(log.empty());
  for (std::uint64_t i = 0; i < 3 * kChunk + 5; ++i) {
    const Entry e{i * 7919, static_cast<std::uint32_t>(i ^ 0x55), i % 3 == 0};
    log.push_back(e);
    want.push_back(e);
  }
  require_same(log, want);
  CHECK(log.back().a == want.back().a);
  CHECK_FALSE(log.full());
}

TEST_CASE("a chunked log never moves an element once appended") {
  ChunkedLog<Entry> log;
  const Entry* first = &log.push_back({1, 2, true});
  std::vector<const Entry*> at_chunk_ends;
  for (std::uint64_t i = 1; i < 4 * ChunkedLog<Entry>::kChunk; ++i) {
    log.push_back({i, 0, false});
    if (i % ChunkedLog<Entry>::kChunk == 0) at_chunk_ends.push_back(&log[i]);
  }
  CHECK(&log[0] == first);
  CHECK(first->a == 1);
  for (const Entry* p : at_chunk_ends) CHECK(&log[p->a] == p);
}

TEST_CASE("a chunked log's elements can be changed in place, and a copy is independent") {
  ChunkedLog<Entry> log = {{1, 1, false}, {2, 2, false}, {3, 3, false}};
  ChunkedLog<Entry> copy = log;
  log[1].b = 20;
  copy.push_back({4, 4, true});
  require_same(log, {{1, 1, false}, {2, 20, false}, {3, 3, false}});
  require_same(copy, {{1, 1, false}, {2, 2, false}, {3, 3, false}, {4, 4, true}});
  copy = log;
  require_same(copy, {{1, 1, false}, {2, 20, false}, {3, 3, false}});
}

TEST_CASE("a chunked log with a capacity reports full when it is reached") {
  ChunkedLog<Entry> log(5);
  for (std::uint64_t i = 0; i < 5; ++i) {
    CHECK_FALSE(log.full());
    log.push_back({i, 0, false});
  }
  CHECK(log.full());
  CHECK(log.size() == 5);
}
