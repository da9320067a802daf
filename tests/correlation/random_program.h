#pragma once
// Random valid tile programs for the differential tests (test_random_programs.cpp):
// every program is one `mxcosim run --program` accepts (check_program,
// check_destinations and check_hazards on one chip, check_waits_alone), ends,
// and reads no scratchpad byte, weight buffer or accumulator element that no
// instruction of it wrote, so that the RTL (random initial state) and the
// functional reference (zeros) must agree on every byte it stores.
//
// The generator keeps, in program order, what the reference will have
// written and which rows a chip's own ICI_SENDs have yet to deliver, and
// picks each instruction's operands so that it reads only what is written.
// Wait fields start random; the hazards between units that find_hazard
// sees are then closed by applying its fix (repair_hazards). Rows an
// ICI_SEND delivers into the chip's own scratchpad are outside what
// find_hazard follows, so the generator orders them itself: the send waits
// for every earlier instruction of another unit touching its destination
// rows, an ICI_WAIT counting the rows comes before anything else touches
// them, and that instruction waits for the ICI_WAIT (wait_ici).
#include <cstddef>
#include <cstdint>

#include "models/mxu/instr.h"
#include "models/mxu/tile_geometry.h"

namespace mxc::corr {

struct RandomProgramOptions {
  std::size_t min_instructions = 12, max_instructions = 80;
  /// Allow HBM addresses far past the first GiB (up to the 48-bit address space): for memories that
  /// keep every address apart (IdealMemory), not for ones that alias past their capacity.
  bool high_addresses = true;
};

/// How a program came to be: its generator-inserted ICI_WAITs, and the fixes applied.
struct RandomProgramStats {
  std::size_t forced_waits = 0;  ///< ICI_WAITs inserted before rows still arriving were touched.
  std::size_t wait_repairs = 0;  ///< Wait fields lowered by repair_hazards.
  std::size_t fence_repairs = 0; ///< FENCEs inserted by repair_hazards.
};

/// A random valid program for a tile of `geo` (every ICI_SEND to chip 0, a
/// one-chip system), the same for the same seed, geometry and options.
Program random_program(std::uint64_t seed, const TileGeometry& geo, const RandomProgramOptions& options = {},
                       RandomProgramStats* stats = nullptr);

/// Closes the hazards find_hazard reports (one chip runs the program), one at
/// a time: lowers the wait field its fix names on the later instruction, or
/// inserts a FENCE before it. Throws std::logic_error on a fix it cannot
/// apply (an ICI_WAIT the program lacks) or one that would change nothing.
void repair_hazards(Program& program, RandomProgramStats* stats = nullptr);

}  // namespace mxc::corr
