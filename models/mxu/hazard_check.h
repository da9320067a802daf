#pragma once
// Scratchpad hazards between the tile's units that a program's wait fields
// leave open. The DMA, compute and ICI units run side by side; only the
// compute unit orders its own work (docs/isa.md, Dependencies), so an
// instruction that reads scratchpad rows another unit's earlier instruction
// writes, or writes rows it reads or writes, must wait for it to complete.
// Likewise for the accumulator rows an ICI_SEND a chip sends to itself adds
// into (to_acc): the MATMULs writing them before it must have written their
// results back, the OUTPUTs reading them before it must have completed, and
// the MATMULs and OUTPUTs after it must wait for an ICI_WAIT counting its
// rows, which are added whenever they arrive. The same for the scratchpad
// rows a plain ICI_SEND a chip sends to itself writes: other units'
// instructions using them before it must have completed, and every
// instruction using them after it must wait for an ICI_WAIT counting its
// rows (the ICI unit's own: follow one). When every chip of a system runs
// the program, each chip's copy of a send's rows lands on the same rows of
// chip dst_chip in an order nothing fixes: a store of what a plain send's
// rows, or the sum bf16 rows were added into, are made into depends on it
// (int8 sums do not). With a program per chip, every chip's known, the
// same holds for rows of a chip that plain sends of more than one chip
// write, or bf16 sends of more than one chip add into, its own sends to
// itself among them; and data made so on one chip and sent on to another
// is followed there. Where nothing guarantees that,
// the result depends on timing and the reference, which runs the program in
// order, cannot predict it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/mxu/assembler.h"
#include "models/mxu/instr.h"

namespace mxc {

/// Instruction `later` may run while instruction `earlier` (another unit's)
/// still touches the same scratchpad rows, one of them writing, or the two
/// race on accumulator rows an ICI_SEND adds into.
struct Hazard {
  std::size_t earlier = 0, later = 0;  ///< Instruction indices.
  std::uint32_t first_row = 0, last_row = 0;  ///< The rows both touch.
  bool later_writes = false, earlier_writes = false;
  /// Accumulator rows of the chip an ICI_SEND (to_acc) sends to itself: see
  /// `race`. Else scratchpad rows.
  bool accumulators = false;
  enum class Race {
    /// `later` is the ICI_SEND; `earlier` a MATMUL that may not have written
    /// its results back.
    kWriteBack,
    /// `later` is the ICI_SEND; `earlier` an OUTPUT that may still read them.
    kRead,
    /// `earlier` is the ICI_SEND; `later` a MATMUL (writing them) or an
    /// OUTPUT (reading them) that may run before its rows have arrived.
    kArrival,
    /// `earlier` is an ICI_SEND every chip of the system runs, so chip
    /// dst_chip receives a copy of its rows from each, in an order nothing
    /// fixes; `later` is a DMA_STORE of scratchpad rows computed from them
    /// (a plain send's rows, or accumulator rows bf16 copies were added
    /// into, whose floating-point sum depends on that order). With a
    /// program per chip, `earlier` is a send into rows that sends of other
    /// chips write too (or one carrying data made so on its chip:
    /// `earlier_chip`). No wait closes it: `fix` is empty.
    kCopies,
  };
  /// With `accumulators`; kArrival and kCopies also on scratchpad rows
  /// (`earlier` the ICI_SEND whose rows they are).
  Race race = Race::kWriteBack;
  /// Scratchpad rows `later`, an ICI_SEND the chip sends itself, writes when
  /// its rows arrive, which `earlier` may still use.
  bool destination = false;
  /// kCopies with a program per chip: the chip whose program holds `earlier`,
  /// when it is another chip's (its send's rows land on this chip). Else
  /// `earlier` is this program's.
  std::optional<std::uint32_t> earlier_chip;
  /// What closes it: a wait field, e.g. "wait_dma=0" (at most that many of
  /// the earlier instruction's unit outstanding leaves it, and all of that
  /// unit before it, complete), "a fence before it" (kWriteBack), or "an
  /// ici_wait counting them before it and wait_ici=0" (kArrival, when no
  /// ICI_WAIT before `later` counts the rows).
  std::string fix;
};

/// The chips that run a program, which says which of its ICI_SENDs a chip
/// sends to itself and which rows the others send it.
struct RunOn {
  std::uint32_t chips = 1;  ///< The chips of the system.
  /// Unset: every chip runs the program (an assembly file), so chip dst_chip
  /// runs each ICI_SEND too and sends its rows to itself, and each other chip
  /// sends it the same rows: the case of `programs` where every chip's
  /// program is this one. Set: the program is this chip's own, the others
  /// run theirs: its ICI_SENDs to dst_chip == `chip` go to itself.
  std::optional<std::uint32_t> chip;
  /// With `chip`: every chip's program, by chip (one assembly file per chip;
  /// `(*programs)[*chip]` is the program checked), so the rows the others
  /// send it are known: they may fill its ICI_WAITs' counts first, and rows
  /// that sends of more than one chip write arrive in an order nothing
  /// fixes. Null: what the others send it is not known (a compiled
  /// multi-chip GEMM), and no wait counts its own rows for sure.
  const std::vector<Program>* programs = nullptr;
};

/// The first hazard in program order (by its later instruction), if any.
/// What is guaranteed complete at each dispatch follows the hardware's
/// rules: an instruction dispatches once at most WAIT_X instructions of each
/// unit X are outstanding (FENCE: none), at most max_outstanding_at_dispatch
/// (models/mxu/unit_queues.h) of each unit are, dispatch is in program order,
/// and each unit completes in order; what held at an instruction's dispatch
/// holds once it has completed. A MATMUL's results are in the accumulators
/// after a FENCE or once a later OUTPUT has completed. The rows a chip sends
/// itself arrive in the order it sends them, and an ICI_WAIT that has
/// completed has counted as many rows as it and the ICI_WAITs before it
/// wait for; rows other chips send in can arrive first, and may fill those
/// counts. Rows of the chip that plain sends of more than one chip write,
/// or bf16 sends of more than one chip add into (their copies of a send
/// when every chip runs the program), hold data that depends on their order
/// from when the chip's own send into them runs; with a program per chip,
/// rows other chips' sends make so (two of them, or one sending data made
/// so on its chip) hold it from the start, whatever the chip writes there,
/// until its completed ICI_WAITs count every row the others send it
/// besides all its own. What is made of it is followed to a DMA_STORE, and
/// which sends carry it is worked out over every chip's program until
/// nothing changes. Other chips' rows are
/// otherwise not followed: their rows landing on rows the destination's
/// own instructions use (its earlier MATMUL writing them, OUTPUT reading
/// them, a DMA_LOAD writing them again) are ordered by the programs' own
/// synchronisation, which is not checked.
std::optional<Hazard> find_hazard(const Program& program, const RunOn& run_on = {});

/// Throws std::invalid_argument "FILE:LINE: ..." naming the first hazard's
/// instruction, the one it races with and the wait that would close it, for
/// a program every chip of a `chips`-chip system runs.
void check_hazards(const Program& program, const ProgramSource& source, std::uint32_t chips);

/// The same for a program per chip (`programs[c]` runs on chip c, read from
/// `sources[c]`): the first chip's first hazard, named in its file; the send
/// of another chip it comes from, in that chip's.
void check_hazards(const std::vector<Program>& programs, const std::vector<ProgramSource>& sources);

}  // namespace mxc
