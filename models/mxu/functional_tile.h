#pragma once
// The functional reference of one MXU tile: executes a program on its
// architectural state (scratchpad, weight buffers, accumulators) and on HBM,
// with no timing and the RTL's documented arithmetic bit for bit
// (docs/numerics.md). Its final memory image is what the RTL must produce.
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
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

  /// The instructions so far that read state no instruction had written
  /// (scratchpad bytes, a weight buffer, accumulator columns), one line
  /// each, e.g. "'dma_store rows=2 ...' reads scratchpad rows 100..101 bytes
  /// 0..31, never written". The reference takes such state as 0; the RTL
  /// holds random values from its seed, so results built on it differ. An
  /// ICI_SEND is no such read: rows sent only to synchronise carry whatever
  /// the row holds; what arrives is unwritten at the receiver where it was
  /// at the sender, and reading it there is noted.
  const std::vector<std::string>& undefined_reads() const { return m_undefined; }

  const TileGeometry& geometry() const { return m_geo; }
  const std::vector<std::uint8_t>& sp_row(std::uint32_t r) const { return m_sp.at(r); }
  std::uint32_t acc(std::uint32_t row, std::uint32_t col) const { return m_acc.at(std::size_t{row} * m_geo.cols + col); }

 private:
  void check(const Instr& in) const;
  /// Bytes from the start of scratchpad row `row`, up to `bytes`, that were written.
  std::uint32_t written_prefix(std::uint32_t row, std::uint32_t bytes) const;
  /// Notes scratchpad rows [row, row + n) read over bytes [0, bytes) where
  /// any byte was never written.
  void read_sp(const Instr& in, std::uint32_t row, std::uint32_t n, std::uint32_t bytes);
  /// Notes accumulator rows [row, row + n) read over columns [0, cols) likewise.
  void read_acc(const Instr& in, std::uint32_t row, std::uint32_t n, std::uint32_t cols);
  /// Records that `in` read `what` (scratchpad, accumulator) where `spans` (unwritten_spans)
  /// were never written; nothing when `spans` is empty.
  void note_undefined(const Instr& in, const std::string& what, const std::string& spans);
  std::uint16_t element(const std::vector<std::uint8_t>& row, std::uint32_t i, bool bf16, std::uint32_t count) const;

  TileGeometry m_geo;
  SparseMemory& m_hbm;
  std::uint32_t m_chip;
  SendFn m_send;
  std::vector<std::vector<std::uint8_t>> m_sp;  // sp_rows x sp_row_bytes
  std::vector<std::uint16_t> m_weights[2];      // rows x cols lanes
  std::vector<std::uint32_t> m_acc;             // acc_rows x cols
  std::uint64_t m_arrived = 0;                  // inbound rows not yet consumed by ICI_WAIT
  // What has been written, a flag per byte of the scratchpad and per
  // accumulator element (undefined_reads).
  std::vector<std::vector<std::uint8_t>> m_sp_written;  // as m_sp
  std::vector<std::uint8_t> m_acc_written;               // as m_acc
  bool m_weights_written[2] = {false, false};
  std::vector<std::string> m_undefined;
};

}  // namespace mxc
