#pragma once
// Tile instructions as the C++ side sees them. A program is a list of these;
// both tiles (RtlTile, ModelTile) execute the same list.
#include <cstdint>
#include <string>
#include <vector>

namespace mxc {

enum class Opcode : std::uint8_t {
  kLoadWeights,  ///< Read a rows x cols int8 weight tile; shift it into weight buffer `buf`.
  kMatmul,       ///< Stream `rows` activation vectors of `cols` int8 through buffer `buf`.
  kStore,        ///< Write `rows` accumulator rows (`cols` int32 each) to memory.
};

std::string to_string(Opcode op);

struct Instr {
  Opcode op = Opcode::kLoadWeights;
  std::uint64_t addr = 0;     ///< Memory address of the tile's first element.
  std::uint32_t stride = 0;   ///< Bytes between consecutive rows in memory.
  std::uint32_t rows = 0;     ///< LoadWeights: K rows (<= array rows); Matmul: vectors; Store: acc rows.
  std::uint32_t cols = 0;     ///< LoadWeights: N (<= array cols); Matmul: K (<= array rows); Store: N.
  std::uint32_t acc_addr = 0; ///< First accumulator row (Matmul, Store).
  bool accumulate = false;    ///< Matmul: add into the accumulators instead of overwriting.
  std::uint8_t buf = 0;       ///< Weight buffer (0 or 1).
};

using Program = std::vector<Instr>;

/// One line of human-readable text per instruction, for logs and mismatch reports.
std::string describe(const Instr& in);

/// When an instruction ran on a tile, in tile cycles (end = last cycle + 1).
struct InstrEvent {
  std::size_t index = 0;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};

}  // namespace mxc
