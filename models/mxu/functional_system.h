#pragma once
// The functional reference of a multi-chip system: one FunctionalTile per
// chip, each with its own HBM image; an ICI_SEND row is applied at once to
// the destination tile (receive()), and the chips take turns, one
// instruction each, an ICI_WAIT blocking its chip until its rows arrived.
// Per-chip results do not depend on the interleaving when the programs
// synchronise as docs/workloads.md describes.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/core/sparse_memory.h"
#include "models/mxu/functional_tile.h"

namespace mxc {

class FunctionalSystem {
 public:
  FunctionalSystem(const TileGeometry& geometry, std::uint32_t chips);

  std::uint32_t chips() const { return static_cast<std::uint32_t>(m_tiles.size()); }
  /// Chip `c`'s HBM image (load operands before run(), read results after).
  SparseMemory& memory(std::uint32_t c) { return *m_mem.at(c); }
  const FunctionalTile& tile(std::uint32_t c) const { return *m_tiles.at(c); }

  /// Names instruction `index` of chip `chip`'s program in messages
  /// ("instruction 7" without one; "prog.s:12" for a file's).
  using InstrNamer = std::function<std::string(std::size_t chip, std::size_t index)>;

  /// Runs one program per chip to completion. Throws std::runtime_error when
  /// no chip can progress ("deadlock: no chip can progress; chip 1 at
  /// instruction 7 'ici_wait rows=4' has 2 of 4 rows; ..."), and
  /// std::invalid_argument for an instruction a tile cannot execute or a send
  /// to a chip that does not exist.
  void run(const std::vector<Program>& programs, const InstrNamer& name = {});

  /// Rows each chip sent over ICI during run().
  std::uint64_t rows_sent(std::uint32_t c) const { return s_rows_sent.at(c); }

 private:
  std::vector<std::unique_ptr<SparseMemory>> m_mem;
  std::vector<std::unique_ptr<FunctionalTile>> m_tiles;
  std::vector<std::uint64_t> m_pending;  // inbound rows not yet consumed, per chip
  std::vector<std::uint64_t> s_rows_sent;
};

}  // namespace mxc
