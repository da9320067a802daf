#pragma once
// The fields of an instruction against the tile it runs on: the one check
// behind the functional reference (FunctionalTile::step) and the programs
// read from assembly files (load_program_file with a geometry), so that
// `mxcosim run` and `mxcosim model` accept the same programs.
#include <cstdint>
#include <string>

#include "models/mxu/instr.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

/// Throws std::invalid_argument "field 'F': ..." naming the first field of
/// `in` that the tile `geo` cannot execute (a row count past the array, a
/// scratchpad or accumulator range past its rows, a misaligned address).
void check_instruction(const Instr& in, const TileGeometry& geo);

/// Throws std::invalid_argument "`path`: instruction I (text): field
/// 'dst_chip': ..." for the first ICI_SEND of `program` to a chip the
/// system of `chips` chips does not have.
void check_destinations(const Program& program, std::uint32_t chips, const std::string& path);

}  // namespace mxc
