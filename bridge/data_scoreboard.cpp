#include "bridge/data_scoreboard.h"

#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace mxc {

std::string to_string(const Mismatch& m) {
  std::ostringstream s;
  s << m.where << " " << m.id << " " << m.field << ": expected " << m.expected << ", got " << m.actual << " (at "
    << m.time << " ps)";
  return s.str();
}

void DataScoreboard::check_int32_matrix(const std::string& what, const MemoryTarget& mem, std::uint64_t addr,
                                        std::uint64_t stride, std::uint32_t rows, std::uint32_t cols,
                                        std::span<const std::int32_t> expected, Time now) {
  if (expected.size() != std::size_t{rows} * cols)
    throw std::invalid_argument("data scoreboard: expected " + what + " holds " + std::to_string(expected.size()) +
                                " values, not rows x cols");
  std::vector<std::uint8_t> row(std::size_t{cols} * 4);
  for (std::uint32_t r = 0; r < rows; ++r) {
    const std::uint64_t row_addr = addr + r * stride;
    mem.backdoor_read(row_addr, row);
    for (std::uint32_t c = 0; c < cols; ++c) {
      std::int32_t actual;
      std::memcpy(&actual, row.data() + 4 * c, 4);  // little-endian memory image
      const std::int32_t want = expected[std::size_t{r} * cols + c];
      ++s_checked;
      if (actual != want) {
        std::ostringstream id, addr_s;
        id << what << "[" << r << "][" << c << "] @0x" << std::hex << (row_addr + 4 * c);
        report({now, "data scoreboard", id.str(), "int32 value", std::to_string(want), std::to_string(actual)});
      }
    }
  }
}

}  // namespace mxc
