#include "models/mxu/reference_gemm.h"

#include <stdexcept>

namespace mxc {

std::vector<std::int32_t> reference_gemm_int8(std::span<const std::int8_t> a, std::span<const std::int8_t> b,
                                              std::size_t m, std::size_t k, std::size_t n) {
  if (a.size() != m * k || b.size() != k * n) throw std::invalid_argument("reference_gemm_int8: operand sizes disagree with m, k, n");
  std::vector<std::int32_t> c(m * n);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      // Unsigned arithmetic: wraps modulo 2^32 without undefined behaviour.
      std::uint32_t acc = 0;
      for (std::size_t p = 0; p < k; ++p)
        acc += static_cast<std::uint32_t>(std::int32_t{a[i * k + p]} * std::int32_t{b[p * n + j]});
      c[i * n + j] = static_cast<std::int32_t>(acc);
    }
  }
  return c;
}

}  // namespace mxc
