// The data scoreboard's memory check on hand-made memories and write logs: which bytes it
// compares, how it names a difference, and the time it stamps it with.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "bridge/data_scoreboard.h"

using namespace mxc;

namespace {

MemoryLogEntry write(std::uint64_t addr, std::uint32_t bytes, Time issue) {
  MemoryLogEntry e;
  e.write = true;
  e.addr = addr;
  e.bytes = bytes;
  e.issue = issue;
  e.accept = issue + 10;
  return e;
}

std::vector<std::uint8_t> filled(std::size_t n, std::uint8_t b) { return std::vector<std::uint8_t>(n, b); }

}  // namespace

TEST_CASE("bytes in hex, in address order", "[data]") {
  CHECK(format_bytes(std::vector<std::uint8_t>{0xde, 0x0a, 0x00, 0xff}) == "de 0a 00 ff");
  CHECK(format_bytes(std::vector<std::uint8_t>{}).empty());
}

TEST_CASE("a byte's last write is the latest issued of those covering it", "[data]") {
  MemoryLog log;
  log.push_back(write(0x1000, 32, 500));
  log.push_back(write(0x1010, 32, 900));  // covers 0x1010..0x102f, later
  log.push_back(write(0x1000, 4, 700));
  MemoryLogEntry read = write(0x5000, 32, 1000);
  read.write = false;
  log.push_back(read);
  WriteIndex idx;
  idx.add(log);
  REQUIRE(idx.last_covering(0x1000));
  CHECK(idx.last_covering(0x1000)->issue == 700);
  CHECK(idx.last_covering(0x1004)->issue == 500);
  CHECK(idx.last_covering(0x1010)->issue == 900);
  CHECK(idx.last_covering(0x102f)->issue == 900);
  CHECK_FALSE(idx.last_covering(0x1030));
  CHECK_FALSE(idx.last_covering(0x5000));  // a read writes nothing
  CHECK_FALSE(idx.last_covering(0xfff));
  // A write across a page boundary touches both pages.
  MemoryLog more;
  more.push_back(write(0x2ff0, 32, 100));
  idx.add(more);
  CHECK(idx.pages() == std::vector<std::uint64_t>{0x1000, 0x2000, 0x3000});
}

TEST_CASE("memory: every byte outside the skipped ones, each run of differences named by address", "[data]") {
  // The reference's image: a page at 0x1000 holding 0x11, with a 16-byte row of results at
  // 0x1000 (checked as elements elsewhere: skipped) in a 32-byte pitch whose padding holds 0x11.
  SparseMemory expected, actual, skip;
  expected.write(0x1000, filled(4096, 0x11));
  actual.write(0x1000, filled(4096, 0x11));
  skip.write(0x1000, filled(16, 1));
  // The design wrote its row's whole beat: its results (wrong, but skipped here) and 0xee into
  // four bytes of padding, 0x1010..0x1013; and it left 0x1800 at 0.
  actual.write(0x1000, filled(16, 0x77));
  actual.write(0x1010, filled(4, 0xee));
  actual.write(0x1800, filled(1, 0x00));
  MemoryLog log;
  log.push_back(write(0x1000, 32, 4000));
  WriteIndex writes;
  writes.add(log);
  DataScoreboard sb;
  const std::vector<std::uint64_t> pages = {0x1000};
  sb.check_memory(
      "chip0.memory", expected, skip, pages,
      [&](std::uint64_t a, std::span<std::uint8_t> out) { actual.read(a, out); }, writes,
      [&](std::uint64_t a) {
        const WriteIndex::Write* w = writes.last_covering(a);
        return w ? w->issue : Time{99999};
      });
  CHECK(sb.bytes_checked() == 4096 - 16);
  REQUIRE(sb.mismatch_count() == 2);
  const Mismatch& pad = sb.mismatches()[0];
  CHECK(pad.where == "data scoreboard");
  CHECK(pad.id == "chip0.memory @0x1010");
  CHECK(pad.field == "bytes (hex)");
  CHECK(pad.expected == "11 11 11 11");
  CHECK(pad.actual == "ee ee ee ee");
  CHECK(pad.time == 4000);  // the write that covered it
  const Mismatch& unwritten = sb.mismatches()[1];
  CHECK(unwritten.id == "chip0.memory @0x1800");
  CHECK(unwritten.expected == "11");
  CHECK(unwritten.actual == "00");
  CHECK(unwritten.time == 99999);  // no write covers it
}

TEST_CASE("memory: a long run of differences is cut into mismatches of 16 bytes", "[data]") {
  SparseMemory expected, actual, skip;
  expected.write(0x0, filled(4096, 0));
  actual.write(0x0, filled(4096, 0));
  actual.write(0x100, filled(20, 0x5a));
  DataScoreboard sb;
  const std::vector<std::uint64_t> pages = {0x0};
  const auto read = [&](std::uint64_t a, std::span<std::uint8_t> out) { actual.read(a, out); };
  sb.check_memory("m", expected, skip, pages, read, WriteIndex{}, [](std::uint64_t) { return Time{1}; });
  REQUIRE(sb.mismatch_count() == 2);
  CHECK(sb.mismatches()[0].id == "m @0x100");
  CHECK(sb.mismatches()[0].actual == format_bytes(filled(16, 0x5a)));
  CHECK(sb.mismatches()[1].id == "m @0x110");
  CHECK(sb.mismatches()[1].expected == "00 00 00 00");
}

TEST_CASE("memory: a write into a page the reference never wrote fails, zeros or not", "[data]") {
  SparseMemory expected, actual, skip;
  expected.write(0x1000, filled(4096, 0x11));
  actual.write(0x1000, filled(4096, 0x11));
  // A copy of a 32-byte write 1 GiB up, and a write of zeros 2 GiB up.
  actual.write(0x40001000, filled(32, 0x11));
  MemoryLog log;
  log.push_back(write(0x1000, 32, 100));
  log.push_back(write(0x40001000, 32, 200));
  log.push_back(write(0x80000000, 64, 300));
  WriteIndex writes;
  writes.add(log);
  DataScoreboard sb;
  const std::vector<std::uint64_t> pages = {0x1000, 0x40001000, 0x80000000};
  REQUIRE(writes.pages() == pages);
  sb.check_memory("chip0.memory", expected, skip, pages,
                  [&](std::uint64_t a, std::span<std::uint8_t> out) { actual.read(a, out); }, writes,
                  [](std::uint64_t) { return Time{0}; });
  REQUIRE(sb.mismatch_count() == 2);
  CHECK(sb.mismatches()[0].id == "chip0.memory @0x40001000");
  CHECK(sb.mismatches()[0].field == "write");
  CHECK(sb.mismatches()[0].expected == "none (the reference writes nothing in page 0x40001000)");
  CHECK(sb.mismatches()[0].actual ==
        "32 bytes written; now at 0x40001000: " + format_bytes(filled(16, 0x11)) + " ...");
  CHECK(sb.mismatches()[0].time == 200);
  CHECK(sb.mismatches()[1].id == "chip0.memory @0x80000000");
  CHECK(sb.mismatches()[1].actual == "64 bytes written; now at 0x80000000: " + format_bytes(filled(16, 0)) + " ...");
  CHECK(sb.mismatches()[1].time == 300);
}

TEST_CASE("memory: a stray write shows the bytes at its address after the run, a later write's too", "[data]") {
  // Two 8-byte writes to 0x40000000, where the reference writes nothing: the memory, read once
  // the run has ended, holds the second's bytes (0x22), so both reports show those as the bytes
  // now there, the first's included.
  SparseMemory expected, actual, skip;
  expected.write(0x0, filled(4096, 0));
  actual.write(0x40000000, filled(8, 0x22));
  MemoryLog log;
  log.push_back(write(0x40000000, 8, 100));
  log.push_back(write(0x40000000, 8, 200));
  WriteIndex writes;
  writes.add(log);
  DataScoreboard sb;
  const std::vector<std::uint64_t> pages = {0x40000000};
  sb.check_memory("chip0.memory", expected, skip, pages,
                  [&](std::uint64_t a, std::span<std::uint8_t> out) { actual.read(a, out); }, writes,
                  [](std::uint64_t) { return Time{0}; });
  REQUIRE(sb.mismatch_count() == 2);
  for (const Mismatch& m : sb.mismatches()) {
    CHECK(m.id == "chip0.memory @0x40000000");
    CHECK(m.actual == "8 bytes written; now at 0x40000000: 22 22 22 22 22 22 22 22");
  }
  CHECK(sb.mismatches()[0].time != sb.mismatches()[1].time);
}

TEST_CASE("elements: each mismatch at the time its address gives", "[data]") {
  DataScoreboard sb;
  const std::vector<std::uint32_t> want = {1, 2, 3, 4}, got = {1, 5, 3, 6};
  sb.check_matrix("C", got, want, 2, 2, DType::kInt8, 4,
                  [](std::uint32_t i, std::uint32_t j) { return 0x100 + 32ull * i + 4 * j; },
                  [](std::uint64_t a) { return Time{a * 10}; });
  REQUIRE(sb.mismatch_count() == 2);
  CHECK(sb.mismatches()[0].id == "C[0][1] @0x104");
  CHECK(sb.mismatches()[0].time == 0x104 * 10);
  CHECK(sb.mismatches()[1].id == "C[1][1] @0x124");
  CHECK(sb.mismatches()[1].time == 0x124 * 10);
}
