#pragma once
// The fields of an instruction against the tile it runs on: the one check
// behind the functional reference (FunctionalTile::step) and the programs
// read from assembly files (load_program_file with a geometry), so that
// `mxcosim run` and `mxcosim model` accept the same programs.
#include <cstdint>
#include <optional>
#include <string>

#include "models/mxu/assembler.h"
#include "models/mxu/instr.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

/// Throws std::invalid_argument "field 'F': ..." naming the first field of
/// `in` that the tile `geo` cannot execute (a row count past the array, a
/// scratchpad or accumulator range past its rows, a misaligned address).
void check_instruction(const Instr& in, const TileGeometry& geo);

/// For a program every chip of a `chips`-chip system runs (an assembly
/// file): throws std::invalid_argument "FILE:LINE: field 'dst_chip': ..."
/// for the first ICI_SEND to a chip the system does not have, and "FILE:LINE:
/// field 'remote_row': ..." for one into scratchpad rows overlapping those
/// it sends: chip dst_chip runs it too, so it sends to itself, and its rows
/// arrive while it still reads the ones they overwrite, with a result that
/// depends on timing. With `chip`, the program is that chip's own (one file
/// per chip): only its sends to dst_chip == `chip` are to itself.
void check_destinations(const Program& program, std::uint32_t chips, const ProgramSource& source,
                        std::optional<std::uint32_t> chip = std::nullopt);

/// For a program one chip runs alone (`mxcosim model --program`): throws
/// std::invalid_argument "FILE:LINE: deadlock: ..." for the first ICI_WAIT
/// for more rows than the ICI_SENDs before it deliver (all go to that chip),
/// which would wait for ever.
void check_waits_alone(const Program& program, const ProgramSource& source);

}  // namespace mxc
