#pragma once
// Text assembly for tile programs: one instruction per line in the syntax
// describe() prints ("matmul rows=16 cols=4 sp_row=0 acc_row=0 dtype=int8
// buf=1 accumulate wait_dma=0"), '#' comments, blank lines, numbers in
// decimal or 0x hex. docs/isa.md, "Assembly syntax", defines it.
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "models/mxu/instr.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

/// Parses a program; throws std::runtime_error "FILE:LINE: ..." naming the bad token or field.
Program parse_program(std::istream& in, const std::string& filename);
/// Parses one line (no comment handling beyond '#'); `where` prefixes errors.
/// Returns false for a blank or comment-only line.
bool parse_instruction(const std::string& line, const std::string& where, Instr& out);
/// Reads and parses the file at `path`; throws std::runtime_error if it cannot be read.
Program load_program_file(const std::string& path);
/// Where each instruction of a program read from a file came from, for
/// messages about an instruction: "prog.s:12".
struct ProgramSource {
  std::string path;
  std::vector<std::uint32_t> lines;  ///< The line of instruction i.
  std::string where(std::size_t i) const {
    return i < lines.size() ? path + ":" + std::to_string(lines[i]) : path + ": instruction " + std::to_string(i);
  }
};
/// The same for a program to run on a tile of `geo`: also throws
/// std::invalid_argument "FILE:LINE: field 'F': ..." for an instruction the
/// tile cannot execute (check_instruction) and "FILE: no instructions" for a
/// file without any. With `source`, fills it in.
Program load_program_file(const std::string& path, const TileGeometry& geo, ProgramSource* source = nullptr);
/// Reads and parses the file at `path` once, filling `source`, without a
/// tile's checks: a caller that runs the program on several tiles (and may
/// read a pipe, which gives its text once) checks it per tile with check_program.
Program load_program_file(const std::string& path, ProgramSource& source);
/// Throws what load_program_file with `geo` throws for a program it read:
/// "FILE:LINE: field 'F': ..." (check_instruction) or "FILE: no instructions".
void check_program(const Program& program, const TileGeometry& geo, const ProgramSource& source);
/// One line per instruction (describe()), each ending in '\n'.
std::string format_program(const Program& program);

}  // namespace mxc
