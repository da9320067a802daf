#pragma once
// One scratchpad row travelling between chips: what a tile's outbound ICI
// port emits and its inbound port takes (the payload of one IciPacket).
#include <cstdint>
#include <vector>

namespace mxc {

struct IciRow {
  std::uint32_t src = 0;     ///< Sending chip (filled in by the chip).
  std::uint32_t dst = 0;     ///< Destination chip.
  std::uint16_t row = 0;     ///< Destination scratchpad or accumulator row.
  bool to_acc = false;       ///< Add into accumulator `row` instead of writing scratchpad `row`.
  bool bf16 = false;         ///< Accumulate as fp32 (else int32).
  std::uint16_t bytes = 0;   ///< Valid bytes from the start of the row.
  bool last = false;         ///< Last row of its ICI_SEND.
  std::vector<std::uint8_t> data;  ///< The whole scratchpad row.
  /// Bytes from the start of the row the sender had written (the functional
  /// reference's bookkeeping, FunctionalTile::undefined_reads; tiles ignore it).
  std::uint32_t written = ~std::uint32_t{0};
};

}  // namespace mxc
