#pragma once
// Data scoreboard: compares a result region of memory against the values the
// functional reference expects, element by element.
#include <cstdint>
#include <span>
#include <string>

#include "bridge/checker.h"
#include "models/core/memory_target.h"

namespace mxc {

class DataScoreboard : public Checker {
 public:
  std::string name() const override { return "data"; }

  /// Compares the rows x cols int32 matrix at `addr` (row stride `stride`
  /// bytes) with `expected` (row-major). Mismatches name the matrix `what`,
  /// the element [row][col], its address, and both values.
  void check_int32_matrix(const std::string& what, const MemoryTarget& mem, std::uint64_t addr,
                          std::uint64_t stride, std::uint32_t rows, std::uint32_t cols,
                          std::span<const std::int32_t> expected, Time now);

  std::uint64_t elements_checked() const { return s_checked; }

 private:
  std::uint64_t s_checked = 0;
};

}  // namespace mxc
