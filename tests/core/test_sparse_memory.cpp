#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>

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

TEST_CASE("sparse memory masked write across pages matches byte-by-byte writes") {
  // Three pages' worth of bytes from the middle of page 1, every third byte
  // enabled, except that nothing in page 3 is: it must stay unallocated.
  constexpr std::uint64_t kPage = SparseMemory::kPageBytes;
  const std::uint64_t addr = kPage + kPage / 2;
  std::vector<std::uint8_t> data(2 * kPage);
  std::iota(data.begin(), data.end(), 7);
  std::vector<bool> enable(data.size());
  for (std::size_t i = 0; i < enable.size(); ++i) enable[i] = i % 3 == 0 && addr + i < 3 * kPage;
  SparseMemory masked, reference;
  masked.write_masked(addr, data, enable);
  for (std::size_t i = 0; i < data.size(); ++i)
    if (enable[i]) reference.write(addr + i, std::vector<std::uint8_t>{data[i]});
  CHECK(masked.pages_allocated() == 2);
  CHECK(masked.read(0, 4 * kPage) == reference.read(0, 4 * kPage));
  // An enable list shorter than the data leaves the rest unwritten.
  masked.write_masked(0, std::vector<std::uint8_t>{1, 2, 3}, {true});
  CHECK(masked.read(0, 3) == std::vector<std::uint8_t>{1, 0, 0});
}

TEST_CASE("sparse memory masked writes of random sizes, offsets and masks match byte-by-byte writes") {
  // Masks: all, none, some bytes, one stretch; writes across page boundaries.
  // Pages are allocated exactly where a byte was enabled.
  constexpr std::uint64_t kPage = SparseMemory::kPageBytes;
  SparseMemory masked, reference;
  std::mt19937_64 rng(11);
  for (int k = 0; k < 3000; ++k) {
    const std::size_t bytes = 1 + rng() % (k % 4 == 0 ? 600 : 40);
    const std::uint64_t addr = kPage * (rng() % 6) + kPage - 300 + rng() % 400;
    std::vector<std::uint8_t> data(bytes);
    for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    const int kind = static_cast<int>(rng() % 4);
    std::vector<bool> enable(bytes, kind == 0);
    if (kind == 2)
      for (std::size_t i = 0; i < bytes; ++i) enable[i] = rng() % 3 == 0;
    if (kind == 3)
      for (std::size_t i = rng() % bytes, e = i + rng() % 64; i < bytes && i < e; ++i) enable[i] = true;
    masked.write_masked(addr, data, enable);
    for (std::size_t i = 0; i < bytes; ++i)
      if (enable[i]) reference.write(addr + i, std::vector<std::uint8_t>{data[i]});
  }
  CHECK(masked.pages_allocated() == reference.pages_allocated());
  CHECK(masked.read(0, 8 * kPage) == reference.read(0, 8 * kPage));
}
