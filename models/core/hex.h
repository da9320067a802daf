#pragma once
// A 64-bit value as "0x..." in messages (addresses, payloads).
#include <cstdint>
#include <cstdio>
#include <string>

namespace mxc {

inline std::string hex(std::uint64_t v) {
  char b[19];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace mxc
