#include "bridge/data_scoreboard.h"

#include <cstring>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace mxc {

std::string format_value(std::uint32_t bits, DType dtype, std::uint32_t elem_bytes) {
  if (elem_bytes == 1) return std::to_string(static_cast<std::int8_t>(bits));
  if (elem_bytes == 2) {
    std::ostringstream s;
    const std::uint32_t widened = (bits & 0xffff) << 16;
    float f;
    std::memcpy(&f, &widened, 4);
    s << "0x" << std::hex << std::setw(4) << std::setfill('0') << (bits & 0xffff) << std::dec << " (" << f << ")";
    return s.str();
  }
  if (dtype == DType::kInt8) return std::to_string(static_cast<std::int32_t>(bits));
  float f;
  std::memcpy(&f, &bits, 4);
  std::ostringstream s;
  s << "0x" << std::hex << std::setw(8) << std::setfill('0') << bits << std::dec << " (" << std::setprecision(9) << f
    << ")";
  return s.str();
}

void DataScoreboard::check_matrix(const std::string& what, std::span<const std::uint32_t> actual,
                                  std::span<const std::uint32_t> expected, std::uint32_t rows, std::uint32_t cols,
                                  DType dtype, std::uint32_t elem_bytes,
                                  const std::function<std::uint64_t(std::uint32_t, std::uint32_t)>& addr_of, Time now) {
  if (actual.size() != std::size_t{rows} * cols || expected.size() != actual.size())
    throw std::invalid_argument("data scoreboard: " + what + " sizes disagree with rows x cols");
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < cols; ++c) {
      const std::size_t i = std::size_t{r} * cols + c;
      ++s_checked;
      if (actual[i] == expected[i]) continue;
      std::ostringstream id;
      id << what << "[" << r << "][" << c << "] @0x" << std::hex << addr_of(r, c);
      static const char* kField[2][5] = {{"", "int8 value", "bf16 value", "", "int32 value"},
                                         {"", "int8 value", "bf16 value", "", "fp32 value"}};
      report({now, "data scoreboard", id.str(), kField[dtype == DType::kBf16][elem_bytes > 4 ? 4 : elem_bytes],
              format_value(expected[i], dtype, elem_bytes), format_value(actual[i], dtype, elem_bytes)});
    }
}

}  // namespace mxc
