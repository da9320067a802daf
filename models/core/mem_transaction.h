#pragma once
// Memory transactions exchanged across the MemoryTarget seam.
#include <cstdint>
#include <vector>

#include "models/core/time.h"

namespace mxc {

/// One read or write of `bytes` bytes at `addr`. Writes carry `data`
/// (bytes long) and an optional byte mask (empty = all bytes enabled).
struct MemRequest {
  std::uint64_t id = 0;       ///< Chosen by the sender, echoed in the response.
  std::uint64_t addr = 0;
  std::uint32_t bytes = 0;
  bool write = false;
  std::vector<std::uint8_t> data;
  std::vector<bool> byte_enable;
  std::uint32_t source = 0;   ///< Requesting port (tile / channel), for statistics.
  Time issue = 0;             ///< When the sender first offered it.

  static MemRequest make_read(std::uint64_t id, std::uint64_t addr, std::uint32_t bytes) {
    MemRequest r;
    r.id = id;
    r.addr = addr;
    r.bytes = bytes;
    return r;
  }
  static MemRequest make_write(std::uint64_t id, std::uint64_t addr, std::vector<std::uint8_t> data) {
    MemRequest r;
    r.id = id;
    r.addr = addr;
    r.bytes = static_cast<std::uint32_t>(data.size());
    r.write = true;
    r.data = std::move(data);
    return r;
  }
};

/// Completion of a MemRequest; reads carry the data.
struct MemResponse {
  std::uint64_t id = 0;
  std::uint64_t addr = 0;
  std::uint32_t bytes = 0;
  bool write = false;
  std::vector<std::uint8_t> data;
  std::uint32_t source = 0;
  Time issue = 0;
  Time accept = 0;            ///< When the target took it.
  Time complete = 0;          ///< When the response is delivered.
};

}  // namespace mxc
