#pragma once
// The functional reference of one MXU tile: executes a program on its
// architectural state (scratchpad, weight buffers, accumulators) and on HBM,
// with no timing and the RTL's documented arithmetic bit for bit
// (docs/numerics.md). Its final memory image is what the RTL must produce.
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "models/core/sparse_memory.h"
#include "models/mxu/ici_row.h"
#include "models/mxu/instr.h"
#include "models/mxu/tile_geometry.h"

namespace mxc {

class FunctionalTile {
 public:
  using SendFn = std::function<void(const IciRow&)>;

  FunctionalTile(const TileGeometry& geometry, SparseMemory& hbm, std::uint32_t chip = 0);

  /// Where ICI_SEND rows go (another FunctionalTile's receive()); by default
  /// rows for this chip loop back and others are an error.
  void set_send(SendFn fn) { m_send = std::move(fn); }
  /// An inbound row: applied to the scratchpad or accumulators at once.
  void receive(const IciRow& row);

  /// Executes `in`; returns false (and does nothing) if it is an ICI_WAIT
  /// whose rows have not all arrived. Throws std::invalid_argument naming the
  /// field of an instruction the tile cannot execute.
  bool step(const Instr& in);
  /// Runs a whole single-chip program; throws if an ICI_WAIT can never finish.
  void run(const Program& program);

  const TileGeometry& geometry() const { return m_geo; }
  const std::vector<std::uint8_t>& sp_row(std::uint32_t r) const { return m_sp.at(r); }
  std::uint32_t acc(std::uint32_t row, std::uint32_t col) const { return m_acc.at(std::size_t{row} * m_geo.cols + col); }

 private:
  void check(const Instr& in) const;
  std::uint16_t element(const std::vector<std::uint8_t>& row, std::uint32_t i, bool bf16, std::uint32_t count) const;

  TileGeometry m_geo;
  SparseMemory& m_hbm;
  std::uint32_t m_chip;
  SendFn m_send;
  std::vector<std::vector<std::uint8_t>> m_sp;  // sp_rows x sp_row_bytes
  std::vector<std::uint16_t> m_weights[2];      // rows x cols lanes
  std::vector<std::uint32_t> m_acc;             // acc_rows x cols
  std::uint64_t m_arrived = 0;                  // inbound rows not yet consumed by ICI_WAIT
};

}  // namespace mxc
