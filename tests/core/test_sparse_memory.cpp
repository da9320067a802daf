#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "models/core/sparse_memory.h"

using mxc::SparseMemory;

TEST_CASE("sparse memory reads zero where nothing was written") {
  SparseMemory mem;
  auto bytes = mem.read(0x1234'5678'9000ULL, 16);
  CHECK(std::all_of(bytes.begin(), bytes.end(), [](auto b) { return b == 0; }));
  CHECK(mem.pages_allocated() == 0);
}

TEST_CASE("sparse memory round-trips a write that straddles pages") {
  SparseMemory mem;
  std::vector<std::uint8_t> data(10000);
  std::iota(data.begin(), data.end(), 0);  // wraps at 256
  const std::uint64_t addr = SparseMemory::kPageBytes - 3;
  mem.write(addr, data);
  CHECK(mem.read(addr, data.size()) == data);
  CHECK(mem.pages_allocated() == 4);  // [4093, 14093) touches pages 0..3
  CHECK(mem.read(addr - 1, 1)[0] == 0);
}

TEST_CASE("sparse memory masked write changes only enabled bytes") {
  SparseMemory mem;
  mem.write(100, std::vector<std::uint8_t>{1, 2, 3, 4});
  mem.write_masked(100, std::vector<std::uint8_t>{9, 9, 9, 9}, {true, false, false, true});
  CHECK(mem.read(100, 4) == std::vector<std::uint8_t>{9, 2, 3, 9});
}
