#pragma once
// Scratchpad hazards between the tile's units that a program's wait fields
// leave open. The DMA, compute and ICI units run side by side; only the
// compute unit orders its own work (docs/isa.md, Dependencies), so an
// instruction that reads scratchpad rows another unit's earlier instruction
// writes, or writes rows it reads or writes, must wait for it to complete.
// Likewise an ICI_SEND adding into accumulator rows must wait until the
// MATMULs writing them have written their results back. Where nothing
// guarantees that, the result depends on timing and the reference, which
// runs the program in order, cannot predict it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "models/mxu/assembler.h"
#include "models/mxu/instr.h"

namespace mxc {

/// Instruction `later` may run while instruction `earlier` (another unit's)
/// still touches the same scratchpad rows, one of them writing, or its
/// results are still on their way to the accumulators `later` adds into.
struct Hazard {
  std::size_t earlier = 0, later = 0;  ///< Instruction indices.
  std::uint32_t first_row = 0, last_row = 0;  ///< The scratchpad rows both touch.
  bool later_writes = false, earlier_writes = false;
  /// Accumulator rows: an ICI_SEND into them (to_acc) while an earlier
  /// MATMUL may not have written its results back (the rows of its chip
  /// dst_chip, which runs the program too); else scratchpad rows.
  bool accumulators = false;
  /// What closes it: a wait field, e.g. "wait_dma=0" (at most that many of
  /// the earlier instruction's unit outstanding leaves it, and all of that
  /// unit before it, complete), or "a fence before it" (accumulators).
  std::string fix;
};

/// The first hazard in program order (by its later instruction), if any.
/// What is guaranteed complete at each dispatch follows the hardware's
/// rules: an instruction dispatches once at most WAIT_X instructions of each
/// unit X are outstanding (FENCE: none), at most max_outstanding_at_dispatch
/// (models/mxu/unit_queues.h) of each unit are, dispatch is in program order,
/// and each unit completes in order; what held at an instruction's dispatch
/// holds once it has completed. A MATMUL's results are in the accumulators
/// after a FENCE or once a later OUTPUT has completed. Rows other chips send
/// into the scratchpad (ICI) are not followed.
std::optional<Hazard> find_hazard(const Program& program);

/// Throws std::invalid_argument "FILE:LINE: ..." naming the first hazard's
/// instruction, the one it races with and the wait field that would close it.
void check_hazards(const Program& program, const ProgramSource& source);

}  // namespace mxc
