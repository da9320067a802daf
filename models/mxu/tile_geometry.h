#pragma once
// The sizes of one MXU tile, as the RTL is parameterised (rtl/mxu_tile.sv),
// and the scratchpad row width they imply.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace mxc {

struct TileGeometry {
  std::uint32_t rows = 4;          ///< Array rows (K per fold).
  std::uint32_t cols = 4;          ///< Array columns (N per fold).
  std::uint32_t acc_rows = 256;    ///< Accumulator rows.
  std::uint32_t sp_rows = 1024;    ///< Scratchpad rows.
  std::uint32_t beat_bytes = 32;   ///< AXI data width in bytes.

  /// Scratchpad row: the smallest whole number of beats holding
  /// max(rows, cols) 32-bit values (a raw output row).
  std::uint32_t sp_row_bytes() const {
    const std::uint32_t need = 4 * std::max(rows, cols);
    return (need + beat_bytes - 1) / beat_bytes * beat_bytes;
  }

  void validate() const {
    if (rows == 0 || cols == 0) throw std::invalid_argument("tile geometry: rows and cols must be >= 1");
    if (acc_rows == 0 || sp_rows == 0) throw std::invalid_argument("tile geometry: acc_rows and sp_rows must be >= 1");
    if (beat_bytes == 0 || (beat_bytes & (beat_bytes - 1)))
      throw std::invalid_argument("tile geometry: beat_bytes must be a power of two");
  }
};

}  // namespace mxc
