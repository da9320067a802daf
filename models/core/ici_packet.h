#pragma once
// A packet on the inter-chip interconnect (the Fabric seam).
#include <cstdint>
#include <vector>

#include "models/core/time.h"

namespace mxc {

struct IciPacket {
  std::uint64_t id = 0;        ///< Unique per source chip, chosen by the sender.
  std::uint32_t src = 0;       ///< Source chip index.
  std::uint32_t dst = 0;       ///< Destination chip index.
  std::uint8_t vc = 0;         ///< Virtual channel requested by the sender (traffic class).
  std::uint32_t bytes = 0;     ///< Payload bytes (headers are the fabric's business).
  std::uint64_t addr = 0;      ///< Destination address the payload is for.
  bool last = false;           ///< Last packet of a message.
  std::vector<std::uint8_t> payload;  ///< May be empty for timing-only traffic.
  Time inject = 0;             ///< When the fabric accepted it.
  Time deliver = 0;            ///< When it arrived at the destination.
};

}  // namespace mxc
