#pragma once
// Data scoreboard: compares a result matrix the RTL left in memory with the
// one the functional reference computed, element by element.
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "bridge/checker.h"
#include "models/mxu/isa.h"

namespace mxc {

class DataScoreboard : public Checker {
 public:
  std::string name() const override { return "data"; }

  /// Compares rows x cols elements (row-major) of elem_bytes bytes each.
  /// Mismatches name the matrix `what`, the element [row][col], its address
  /// (from addr_of), and both values formatted by format_value.
  void check_matrix(const std::string& what, std::span<const std::uint32_t> actual,
                    std::span<const std::uint32_t> expected, std::uint32_t rows, std::uint32_t cols, DType dtype,
                    std::uint32_t elem_bytes, const std::function<std::uint64_t(std::uint32_t, std::uint32_t)>& addr_of,
                    Time now);

  std::uint64_t elements_checked() const { return s_checked; }

 private:
  std::uint64_t s_checked = 0;
};

/// An element as text: 4 bytes: int32 decimal or fp32 "0x3f800000 (1)";
/// 2 bytes: bf16 "0x3f80 (1)"; 1 byte: int8 decimal.
std::string format_value(std::uint32_t bits, DType dtype, std::uint32_t elem_bytes = 4);

}  // namespace mxc
