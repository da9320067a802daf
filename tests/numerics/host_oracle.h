#pragma once
// A second implementation of the numerics rules built on the host's IEEE
// arithmetic (x86-64 SSE: single rounding, round to nearest even), with the
// flush-to-zero, subnormal-as-zero and NaN rules applied around it. It shares
// no code with models/mxu/numerics.cpp.

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>

namespace mxc::test {

inline float f32(uint32_t bits) { return std::bit_cast<float>(bits); }
inline uint32_t bits32(float f) { return std::bit_cast<uint32_t>(f); }

/// Subnormal fp32 -> zero of the same sign.
inline uint32_t daz32(uint32_t x) { return (x & 0x7F800000u) == 0 ? (x & 0x80000000u) : x; }

inline uint32_t oracle_fp32_add(uint32_t a, uint32_t b) {
  const float fa = f32(daz32(a)), fb = f32(daz32(b));
  if (std::isnan(fa) || std::isnan(fb)) return 0x7FC00000u;
  const float r = fa + fb;
  if (std::isnan(r)) return 0x7FC00000u;  // inf - inf
  // Tiny sums of multiples of 2^-149 are exact, so the host's subnormal is the
  // exact sum: flush it with its own sign.
  if (std::fpclassify(r) == FP_SUBNORMAL) return bits32(r) & 0x80000000u;
  return bits32(r);
}

inline uint32_t oracle_bf16_mul(uint16_t a, uint16_t b) {
  const float fa = f32(daz32(static_cast<uint32_t>(a) << 16));
  const float fb = f32(daz32(static_cast<uint32_t>(b) << 16));
  if (std::isnan(fa) || std::isnan(fb)) return 0x7FC00000u;
  // In double the 16-bit significand product is exact and never subnormal.
  const double p = static_cast<double>(fa) * static_cast<double>(fb);
  if (std::isnan(p)) return 0x7FC00000u;  // inf x 0
  const uint32_t sign = std::signbit(p) ? 0x80000000u : 0u;
  if (std::isinf(p) || std::fabs(p) >= std::ldexp(1.0, 128)) return sign | 0x7F800000u;
  if (std::fabs(p) < static_cast<double>(FLT_MIN)) return sign;
  return bits32(static_cast<float>(p));
}

inline uint16_t oracle_fp32_to_bf16(uint32_t x) {
  x = daz32(x);
  const float f = f32(x);
  if (std::isnan(f)) return 0x7FC0;
  if (std::isinf(f) || f == 0.0f) return static_cast<uint16_t>(x >> 16);
  // The two bf16 neighbours of |x| and the distances to them, all exact in
  // double; bf16 keeps 8 significant bits, so its ulp at |x| is 2^(e-8).
  const double v = std::fabs(static_cast<double>(f));
  const double lo = std::fabs(static_cast<double>(f32(x & 0xFFFF0000u)));
  int e = 0;
  std::frexp(v, &e);
  const double hi = lo + std::ldexp(1.0, e - 8);
  const double d_lo = v - lo, d_hi = hi - v;
  const bool lo_even = ((x >> 16) & 1u) == 0;
  const double m = (d_lo < d_hi || (d_lo == d_hi && lo_even)) ? lo : hi;
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  if (m >= std::ldexp(1.0, 128)) return static_cast<uint16_t>(sign | 0x7F80u);
  return static_cast<uint16_t>(sign | (bits32(static_cast<float>(m)) >> 16));
}

}  // namespace mxc::test
