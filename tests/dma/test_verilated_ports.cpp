// Packing bytes into and out of Verilator port types (bridge/verilated_ports.h)
// against the bit layout written out word by word: bit 0 of the port is bit 0
// of byte 0, whatever the port's width, with short spans zero-filled and
// long ones cut.
#include <catch2/catch.hpp>

#include <verilated.h>

#include <cstdint>
#include <vector>

#include "bridge/verilated_ports.h"

using namespace mxc;

namespace {

std::vector<std::uint8_t> pattern(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(0x11 * (i + 1) + 3);
  return v;
}

/// The word a 32-bit slice of the port must hold: bytes 4w..4w+3, byte 4w lowest.
std::uint32_t expected_word(const std::vector<std::uint8_t>& bytes, std::size_t w) {
  std::uint32_t v = 0;
  for (std::size_t b = 0; b < 4; ++b)
    if (4 * w + b < bytes.size()) v |= std::uint32_t{bytes[4 * w + b]} << (8 * b);
  return v;
}

}  // namespace

TEST_CASE("pack fills a wide port word by word, zero beyond the bytes given") {
  for (std::size_t n : {0u, 1u, 5u, 12u, 16u}) {
    VlWide<3> port;
    for (std::size_t w = 0; w < 3; ++w) port[w] = 0xdeadbeef;  // stale contents must go
    const auto bytes = pattern(n);
    verilated::pack(port, bytes);
    for (std::size_t w = 0; w < 3; ++w) {
      INFO("bytes " << n << ", word " << w);
      CHECK(port[w] == expected_word(bytes, w));
    }
  }
}

TEST_CASE("unpack reads a wide port byte by byte, zero past its width") {
  VlWide<3> port;
  port[0] = 0x04030201;
  port[1] = 0x08070605;
  port[2] = 0x0c0b0a09;
  for (std::size_t n : {0u, 3u, 12u, 15u}) {
    std::vector<std::uint8_t> out(n, 0xee);
    verilated::unpack(port, out);
    for (std::size_t i = 0; i < n; ++i) {
      INFO("bytes " << n << ", byte " << i);
      CHECK(out[i] == (i < 12 ? i + 1 : 0));
    }
  }
}

TEST_CASE("pack and unpack of integer ports keep the same byte order") {
  QData q = 0;
  const auto bytes = pattern(8);
  verilated::pack(q, bytes);
  CHECK(q == (std::uint64_t{expected_word(bytes, 1)} << 32 | expected_word(bytes, 0)));
  CData c = 0;
  verilated::pack(c, bytes);
  CHECK(c == bytes[0]);
  std::vector<std::uint8_t> out(10, 0xee);
  verilated::unpack(q, out);
  for (std::size_t i = 0; i < 10; ++i) CHECK(out[i] == (i < 8 ? bytes[i] : 0));
}
