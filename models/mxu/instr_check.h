#pragma once
// The fields of an instruction against the tile it runs on: the one check
// behind the functional reference (FunctionalTile::step) and the programs
// read from assembly files (load_program_file with a geometry), so that
// `mxcosim run` and `mxcosim model` accept the same programs.
#include "models/mxu/instr.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

/// Throws std::invalid_argument "field 'F': ..." naming the first field of
/// `in` that the tile `geo` cannot execute (a row count past the array, a
/// scratchpad or accumulator range past its rows, a misaligned address).
void check_instruction(const Instr& in, const TileGeometry& geo);

}  // namespace mxc
