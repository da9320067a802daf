#pragma once
// Packing bytes into and out of Verilator port types, whatever width the
// port has: CData/SData/IData/QData are integers, wider ports are VlWide<N>
// arrays of 32-bit words. Bit 0 of the port is bit 0 of byte 0.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace mxc::verilated {

template <typename Port>
void pack(Port& port, std::span<const std::uint8_t> bytes) {
  if constexpr (std::is_integral_v<Port>) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < bytes.size() && i < sizeof(Port); ++i) v |= std::uint64_t{bytes[i]} << (8 * i);
    port = static_cast<Port>(v);
  } else if constexpr (std::endian::native == std::endian::little) {
    // The words' bytes lie in memory in port order: one copy (this runs for
    // every R beat and command word, where the byte loop cost hundreds of
    // instructions per cycle).
    const std::size_t n = std::min(bytes.size(), sizeof(Port));
    auto* dst = reinterpret_cast<std::uint8_t*>(&port[0]);
    if (n) std::memcpy(dst, bytes.data(), n);
    std::memset(dst + n, 0, sizeof(Port) - n);
  } else {
    constexpr std::size_t kWords = sizeof(Port) / sizeof(std::uint32_t);
    for (std::size_t w = 0; w < kWords; ++w) {
      std::uint32_t word = 0;
      for (std::size_t b = 0; b < 4; ++b) {
        const std::size_t i = w * 4 + b;
        if (i < bytes.size()) word |= std::uint32_t{bytes[i]} << (8 * b);
      }
      port[w] = word;
    }
  }
}

template <typename Port>
void unpack(const Port& port, std::span<std::uint8_t> bytes) {
  if constexpr (std::is_integral_v<Port>) {
    const std::uint64_t v = port;
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = i < sizeof(Port) ? std::uint8_t(v >> (8 * i)) : 0;
  } else if constexpr (std::endian::native == std::endian::little) {
    const std::size_t n = std::min(bytes.size(), sizeof(Port));
    if (n) std::memcpy(bytes.data(), reinterpret_cast<const std::uint8_t*>(&port[0]), n);
    if (bytes.size() > n) std::memset(bytes.data() + n, 0, bytes.size() - n);
  } else {
    constexpr std::size_t kWords = sizeof(Port) / sizeof(std::uint32_t);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const std::size_t w = i / 4;
      bytes[i] = w < kWords ? std::uint8_t(port[w] >> (8 * (i % 4))) : 0;
    }
  }
}

}  // namespace mxc::verilated
