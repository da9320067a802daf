#pragma once
// A run of bursts waiting in a pseudo-channel controller's read or write
// queue: one burst, or consecutive columns of one row for one request
// (BurstQueue::push_back). Its fields describe the run's oldest burst still
// queued, the one its next command serves; the others follow it one column
// and one seq apart. Its direction and its starvation count are its queue's
// (BurstQueue): a queue holds one direction, and only its oldest burst is
// ever counted as bypassed.
#include <cstdint>

namespace mxc::hbm {

enum class RowOutcome : std::uint8_t { kUnknown, kHit, kMiss, kConflict };

// One cache line each: an entry is read and its neighbours' links written
// on every enqueue and column command, and 16 controllers' queues do not fit
// in L1 together (56 unaligned bytes measured about 4 % slower, 48 bytes
// took more L1 misses under callgrind).
struct alignas(64) QueueEntry {
  std::uint64_t arrival = 0;     ///< First cycle it may be scheduled.
  std::uint64_t waiting_since = 0;  ///< When its next command became wanted (stall statistics).
  std::uint64_t seq = 0;         ///< Arrival order in its queue: compares the ages of bursts of different banks.
  std::uint32_t slot = 0;        ///< The owning request inside HbmModel.
  std::uint32_t row = 0;
  std::uint16_t bank = 0;        ///< Flat bank index in the pseudo-channel.
  std::uint16_t col = 0;         ///< Burst index in the row.
  std::uint16_t run = 1;         ///< Bursts of the run still queued, this one included.
  RowOutcome outcome = RowOutcome::kUnknown;  ///< Set by its first command.
  // Links (BurstQueue): arrival order in the queue, and among its bank's
  // bursts (the first entry of a list has no valid back link).
  std::uint32_t next = 0, prev = 0;
  std::uint32_t bank_next = 0, bank_prev = 0;
};

}  // namespace mxc::hbm
