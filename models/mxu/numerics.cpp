#include "models/mxu/numerics.h"

#include <bit>
#include <stdexcept>

// Integer implementations that follow the RTL datapaths step by step, so a
// mismatch between the two points at one step. The tests check both against
// the host's IEEE arithmetic, which is an independent oracle.

namespace mxc {
namespace {

constexpr uint32_t kFp32Inf = 0x7F800000u;

uint32_t fp32_exp(uint32_t x) { return (x >> 23) & 0xFFu; }
uint32_t fp32_frac(uint32_t x) { return x & 0x7FFFFFu; }
bool fp32_is_nan(uint32_t x) { return fp32_exp(x) == 0xFFu && fp32_frac(x) != 0; }
bool fp32_is_inf(uint32_t x) { return (x & 0x7FFFFFFFu) == kFp32Inf; }

}  // namespace

uint32_t bf16_mul(uint16_t a, uint16_t b) {
  const uint32_t sign = static_cast<uint32_t>((a ^ b) & 0x8000u) << 16;
  const uint32_t ea = (a >> 7) & 0xFFu;
  const uint32_t eb = (b >> 7) & 0xFFu;
  const bool a_nan = ea == 0xFFu && (a & 0x7Fu) != 0;
  const bool b_nan = eb == 0xFFu && (b & 0x7Fu) != 0;
  const bool a_inf = ea == 0xFFu && (a & 0x7Fu) == 0;
  const bool b_inf = eb == 0xFFu && (b & 0x7Fu) == 0;
  const bool a_zero = ea == 0;  // subnormals read as zero
  const bool b_zero = eb == 0;

  if (a_nan || b_nan || (a_inf && b_zero) || (b_inf && a_zero)) return kFp32CanonicalNan;
  if (a_inf || b_inf) return sign | kFp32Inf;
  if (a_zero || b_zero) return sign;

  // 1.ma x 1.mb in [1, 4): bit 15 of the 16-bit product says it reached 2.
  const uint32_t prod = (0x80u | (a & 0x7Fu)) * (0x80u | (b & 0x7Fu));
  const uint32_t carry = prod >> 15;
  const int exp = static_cast<int>(ea + eb) - 127 + static_cast<int>(carry);
  if (exp <= 0) return sign;  // below 2^-126: flush
  if (exp >= 255) return sign | kFp32Inf;
  const uint32_t frac = carry ? (prod & 0x7FFFu) << 8 : (prod & 0x3FFFu) << 9;
  return sign | (static_cast<uint32_t>(exp) << 23) | frac;
}

uint32_t fp32_add(uint32_t a, uint32_t b) {
  const bool a_nan = fp32_is_nan(a), b_nan = fp32_is_nan(b);
  const bool a_inf = fp32_is_inf(a), b_inf = fp32_is_inf(b);
  const bool eff_sub = ((a ^ b) >> 31) != 0;
  if (a_nan || b_nan || (a_inf && b_inf && eff_sub)) return kFp32CanonicalNan;
  if (a_inf) return a;
  if (b_inf) return b;

  // Magnitudes with subnormals read as zero; L is the larger one.
  const uint32_t mag_a = fp32_exp(a) == 0 ? 0 : a & 0x7FFFFFFFu;
  const uint32_t mag_b = fp32_exp(b) == 0 ? 0 : b & 0x7FFFFFFFu;
  const bool swap = mag_b > mag_a;
  const uint32_t mag_l = swap ? mag_b : mag_a;
  const uint32_t mag_s = swap ? mag_a : mag_b;
  const uint32_t sign_l = (swap ? b : a) & 0x80000000u;
  const uint32_t exp_l = fp32_exp(mag_l);
  const uint32_t dexp = exp_l - fp32_exp(mag_s);
  const uint32_t shamt = dexp > 31 ? 31 : dexp;
  const uint32_t sig_l = (mag_l != 0 ? 0x800000u : 0) | fp32_frac(mag_l);
  const uint32_t sig_s = (mag_s != 0 ? 0x800000u : 0) | fp32_frac(mag_s);

  // Align S in a frame with three bits below the significand; lost bits
  // fold into bit 0 (sticky).
  const uint32_t s_frame = sig_s << 3;
  const uint32_t s_shifted = s_frame >> shamt;
  const uint32_t sticky = (s_shifted << shamt) != s_frame ? 1u : 0u;
  const uint32_t s_aligned = s_shifted | sticky;
  const uint32_t l_frame = sig_l << 3;
  const uint32_t sum = eff_sub ? l_frame - s_aligned : l_frame + s_aligned;

  if (sum == 0) return a & b & 0x80000000u;  // exact zero: +0 unless -0 + -0

  // Normalise so the leading one sits at bit 26.
  uint32_t n = sum;
  int exp = static_cast<int>(exp_l);
  if (n >> 27) {
    n = (n >> 1) | (n & 1u);
    exp += 1;
  }
  const int lz = std::countl_zero(n) - 5;  // 27-bit frame in a 32-bit word
  n <<= lz;
  exp -= lz;

  // Round to nearest even on the 3 bits below the 24-bit significand.
  const uint32_t round_up = ((n >> 2) & 1u) && ((n & 3u) || ((n >> 3) & 1u)) ? 1u : 0u;
  const int64_t rounded = static_cast<int64_t>(exp) * (int64_t{1} << 23) + ((n >> 3) & 0x7FFFFFu) + round_up;
  const int64_t exp_r = rounded >> 23;  // the mantissa carry has moved in
  if (exp_r <= 0) return sign_l;        // below 2^-126: flush (always exact)
  if (exp_r >= 255) return sign_l | kFp32Inf;
  return sign_l | static_cast<uint32_t>(rounded);
}

uint16_t fp32_to_bf16(uint32_t x) {
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  if (fp32_is_nan(x)) return kBf16CanonicalNan;
  if (fp32_is_inf(x)) return static_cast<uint16_t>(sign | 0x7F80u);
  if (fp32_exp(x) == 0) return sign;
  const uint32_t upper = x >> 16;
  const uint32_t round_up = ((x >> 15) & 1u) && ((x & 0x7FFFu) || (upper & 1u)) ? 1u : 0u;
  // A carry out of the mantissa increments the exponent; from the largest
  // finite value it lands exactly on infinity's encoding.
  return static_cast<uint16_t>(upper + round_up);
}

int8_t int32_to_int8(int32_t x, unsigned shift) {
  shift &= 31u;
  // Floor-shift with one extra low bit: t's bit 0 is the half.
  const int64_t ext = static_cast<int64_t>(x) * 2;
  const int64_t t = ext >> shift;  // arithmetic: floor
  const bool sticky = (t * (int64_t{1} << shift)) != ext;
  const bool half = (t & 1) != 0;
  const bool odd = (t & 2) != 0;
  const int64_t q = (t >> 1) + ((half && (sticky || odd)) ? 1 : 0);
  if (q > 127) return 127;
  if (q < -128) return -128;
  return static_cast<int8_t>(q);
}

uint32_t relu_fp32(uint32_t x) {
  if (fp32_is_nan(x)) return kFp32CanonicalNan;
  if ((x >> 31) || fp32_exp(x) == 0) return 0;
  return x;
}

int32_t relu_int32(int32_t x) { return x < 0 ? 0 : x; }

uint32_t bf16_dot_column(std::span<const uint16_t> x, std::span<const uint16_t> w_column) {
  if (x.size() != w_column.size()) {
    throw std::invalid_argument("bf16_dot_column: activation and weight column differ in length");
  }
  uint32_t acc = 0;  // +0.0
  for (size_t r = 0; r < x.size(); ++r) acc = fp32_add(acc, bf16_mul(x[r], w_column[r]));
  return acc;
}

}  // namespace mxc
