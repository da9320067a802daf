#pragma once
// One burst waiting in a pseudo-channel controller's read or write queue.
#include <cstdint>

namespace mxc::hbm {

enum class RowOutcome : std::uint8_t { kUnknown, kHit, kMiss, kConflict };

// 32 bytes: queues are scanned and compacted on every scheduling step.
struct QueueEntry {
  std::uint32_t slot = 0;        ///< The owning request inside HbmModel.
  std::uint32_t row = 0;
  std::uint64_t arrival = 0;     ///< First cycle it may be scheduled.
  std::uint64_t waiting_since = 0;  ///< When its next command became wanted (stall statistics).
  std::uint16_t bank = 0;        ///< Flat bank index in the pseudo-channel.
  std::uint16_t col = 0;         ///< Burst index in the row.
  std::uint16_t bypassed = 0;    ///< Younger bursts served before it (saturates).
  bool write = false;
  RowOutcome outcome = RowOutcome::kUnknown;  ///< Set by its first command.
};

}  // namespace mxc::hbm
