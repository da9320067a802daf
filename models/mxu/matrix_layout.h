#pragma once
// Where a matrix lives in HBM. Matrices are stored in column blocks of
// `block_cols` columns; each row of a block is padded to a whole number of
// AXI beats, so every row the DMA moves starts on a beat boundary:
//   addr(i, j) = base + (j / block_cols) * block_pitch + i * row_pitch
//                + (j % block_cols) * elem_bytes
#include <cstdint>

namespace mxc {

struct MatrixLayout {
  std::uint64_t base = 0;
  std::uint32_t rows = 0, cols = 0;
  std::uint32_t block_cols = 1;
  std::uint32_t elem_bytes = 1;
  std::uint32_t beat_bytes = 32;

  std::uint32_t row_pitch() const {
    return (block_cols * elem_bytes + beat_bytes - 1) / beat_bytes * beat_bytes;
  }
  std::uint64_t block_pitch() const { return std::uint64_t{rows} * row_pitch(); }
  std::uint32_t blocks() const { return (cols + block_cols - 1) / block_cols; }
  std::uint64_t bytes() const { return blocks() * block_pitch(); }
  /// Address of the first byte of block `b`'s row `i`.
  std::uint64_t row_addr(std::uint32_t b, std::uint32_t i) const {
    return base + b * block_pitch() + std::uint64_t{i} * row_pitch();
  }
  std::uint64_t addr(std::uint32_t i, std::uint32_t j) const {
    return row_addr(j / block_cols, i) + (j % block_cols) * elem_bytes;
  }
};

}  // namespace mxc
