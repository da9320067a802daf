#pragma once
// Host-side expectations for the workload tests, computed from the element
// arithmetic in models/mxu/numerics.h, not from the tile model.
#include <cstdint>
#include <vector>

#include "models/mxu/numerics.h"
#include "models/mxu/reference_gemm.h"

namespace mxc::testing {

/// int8 C = A x B with int32 wrap, as raw 32-bit values.
inline std::vector<std::uint32_t> int8_gemm(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b,
                                            std::size_t m, std::size_t k, std::size_t n) {
  std::vector<std::int8_t> a8(a.size()), b8(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a8[i] = static_cast<std::int8_t>(a[i] & 0xff);
  for (std::size_t i = 0; i < b.size(); ++i) b8[i] = static_cast<std::int8_t>(b[i] & 0xff);
  const auto c = reference_gemm_int8(a8, b8, m, k, n);
  return std::vector<std::uint32_t>(c.begin(), c.end());
}

/// bf16 C = A[:, k_begin..k_end) x B[k_begin..k_end, :] in the array's order:
/// K in folds of `r` (zero padded to r lanes); per fold the column sum from
/// +0 in lane order; the first fold's sum written, later folds added (fp32).
inline std::vector<std::uint32_t> bf16_gemm_folded(const std::vector<std::uint16_t>& a,
                                                   const std::vector<std::uint16_t>& b, std::size_t m, std::size_t k,
                                                   std::size_t n, std::size_t r, std::size_t k_begin = 0,
                                                   std::size_t k_end = 0) {
  if (k_end == 0) k_end = k;
  std::vector<std::uint32_t> c(m * n);
  std::vector<std::uint16_t> x(r), w(r);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      std::uint32_t acc = 0;
      for (std::size_t k0 = k_begin; k0 < k_end; k0 += r) {
        for (std::size_t l = 0; l < r; ++l) {
          const bool in = k0 + l < k_end;
          x[l] = in ? a[i * k + k0 + l] : 0;
          w[l] = in ? b[(k0 + l) * n + j] : 0;
        }
        const std::uint32_t y = bf16_dot_column(x, w);
        acc = k0 == k_begin ? y : fp32_add(acc, y);
      }
      c[i * n + j] = acc;
    }
  return c;
}

}  // namespace mxc::testing
