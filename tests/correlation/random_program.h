#pragma once
// Random valid tile programs for the differential tests (test_random_programs.cpp):
// every program is one `mxcosim run --program` accepts (check_program,
// check_destinations and check_hazards on its chips, check_waits_alone), ends,
// and reads no scratchpad byte, weight buffer or accumulator element that no
// instruction of it wrote, so that the RTL (random initial state) and the
// functional reference (zeros) must agree on every byte it stores.
//
// The generator keeps, in program order, what the reference will have
// written and which rows a chip's own ICI_SENDs have yet to deliver, and
// picks each instruction's operands so that it reads only what is written.
// Wait fields start random; the hazards between units that find_hazard
// sees are then closed by applying its fix (repair_hazards). Rows an
// ICI_SEND delivers into the chip's own scratchpad the generator orders
// itself, as find_hazard requires (its fixes for them are no wait field to
// lower): the send waits for every earlier instruction of another unit
// touching its destination rows, an ICI_WAIT counting the rows comes before
// anything else touches them, and that instruction waits for the ICI_WAIT
// (wait_ici).
//
// On several chips (RandomProgramOptions::chips) every chip runs the program,
// so a send to chip d lands a copy from every chip, in no order between
// chips: int8 additions into accumulators commute and stay defined, what a
// plain or bf16 send writes is never read until written again. Every chip
// is sent the same rows in all (tokens make up the rest), the ICI_WAITs
// never count more than every chip is sure to be sent (no deadlock), and a
// row that arrived is used only once they count all the other chips' rows
// and the chip's own up to it, as find_hazard requires. Other chips' copies
// land whenever those chips get to the send, which the generator bounds by
// the rows they can have been sent (barriers of token rows after a FENCE
// make that late): a send is dropped unless every earlier instruction
// using its destination rows is complete by then. The programs end with the
// sums read out of the accumulators and stored.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/mxu/instr.h"
#include "models/mxu/tile_geometry.h"

namespace mxc::corr {

/// The count an environment variable gives (the long modes' seeds), or `fallback` when unset.
inline std::uint64_t env_count(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::stoull(v) : fallback;
}

struct RandomProgramOptions {
  std::size_t min_instructions = 12, max_instructions = 80;
  /// Allow HBM addresses far past the first GiB (up to the 48-bit address space): for memories that
  /// keep every address apart (IdealMemory), not for ones that alias past their capacity.
  bool high_addresses = true;
  /// The chips that run the program, each the same file (as `mxcosim run --program` runs it); above
  /// 1, the sends go between chips (random_program.cpp, "rows between chips").
  std::uint32_t chips = 1;
  /// Several chips: the rows every chip is sent in all (0: drawn from the seed).
  std::uint32_t rows_per_chip = 0;
};

/// How a program came to be: its generator-inserted ICI_WAITs, and the fixes applied.
struct RandomProgramStats {
  std::size_t forced_waits = 0;  ///< ICI_WAITs inserted before rows still arriving were touched.
  std::size_t wait_repairs = 0;  ///< Wait fields lowered by repair_hazards.
  std::size_t fence_repairs = 0; ///< FENCEs inserted by repair_hazards.
  std::size_t chip_sends = 0;    ///< Several chips: sends of data.
  std::size_t token_sends = 0;   ///< Several chips: sends of token rows, which nothing reads.
  std::size_t barriers = 0;      ///< Several chips: FENCE, tokens to every chip and an ICI_WAIT for them.
  std::size_t sends_refused = 0; ///< Several chips: sends dropped as other chips' copies could land too early.
  std::size_t shared_redrawn = 0; ///< Per-chip programs: shared programs the per-chip check refused.
};

/// A random valid program for a tile of `geo` (on one chip every ICI_SEND to chip 0), the same
/// for the same seed, geometry and options.
Program random_program(std::uint64_t seed, const TileGeometry& geo, const RandomProgramOptions& options = {},
                       RandomProgramStats* stats = nullptr);

/// Random valid per-chip programs for `options.chips` (2 to 4) chips, as `mxcosim run` runs one
/// file per chip: chip c runs the c-th. Each chip first writes accumulator rows the others will add
/// into and passes a barrier of a row to every other chip; then sends the others random rows of
/// its own, drawn per chip: plain rows into its slot of the receiver's scratchpad (a later send
/// overwriting an earlier one: rows between two chips arrive in order), int8 rows added into rows
/// every chip adds into (sums in any order) and bf16 rows into rows of its own there; and waits
/// for every row the exchange sends it. Then it runs the program random_program makes for every
/// chip (the same on all: more sends between chips) and a FENCE; stores what the exchange left;
/// and ends with a program of its own (random_program on one chip, its rows moved to a part of the
/// scratchpad and of the accumulators nothing else uses, its sends to itself). The exchange's
/// waits count every row of it, so the shared program's waits count the same rows of its own as
/// alone. Every program passes what `mxcosim run` checks of a set of files (check_program,
/// check_destinations and check_hazards per chip).
std::vector<Program> random_chip_programs(std::uint64_t seed, const TileGeometry& geo,
                                          const RandomProgramOptions& options, RandomProgramStats* stats = nullptr);

/// Closes the hazards find_hazard reports (`chips` chips run the program), one at
/// a time: lowers the wait field its fix names on the later instruction, or
/// inserts a FENCE before it. Throws std::logic_error on a fix it cannot
/// apply (an ICI_WAIT the program lacks) or one that would change nothing.
void repair_hazards(Program& program, RandomProgramStats* stats = nullptr, std::uint32_t chips = 1);

}  // namespace mxc::corr
