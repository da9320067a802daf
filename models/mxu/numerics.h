#pragma once
// Bit-exact arithmetic of the MXU tile: the same semantics as the RTL modules
// rtl/mxu_bf16_mul.sv, mxu_fp32_add.sv, mxu_fp32_to_bf16.sv,
// mxu_int32_to_int8.sv and mxu_relu.sv. Values are raw bit patterns
// (uint16_t = bf16, uint32_t = fp32). The rules are in docs/numerics.md.

#include <cstdint>
#include <span>

namespace mxc {

/// The one NaN every fp32 result uses.
inline constexpr uint32_t kFp32CanonicalNan = 0x7FC00000u;
/// The one NaN every bf16 result uses.
inline constexpr uint16_t kBf16CanonicalNan = 0x7FC0u;

/// bf16 x bf16 -> fp32, exact product; subnormals in read as zero, results
/// below 2^-126 flush to zero, 2^128 and above are infinity.
uint32_t bf16_mul(uint16_t a, uint16_t b);

/// fp32 + fp32 -> fp32, round to nearest even, subnormals in read as zero,
/// subnormal results flushed to zero.
uint32_t fp32_add(uint32_t a, uint32_t b);

/// fp32 -> bf16, round to nearest even; subnormal in reads as zero.
uint16_t fp32_to_bf16(uint32_t x);

/// int32 -> int8: arithmetic shift right by `shift` (0..31; its low 5 bits, as
/// the instruction's SHIFT field) rounding to nearest, ties to even, then
/// saturation to [-128, 127].
int8_t int32_to_int8(int32_t x, unsigned shift);

/// ReLU on fp32: negatives, -0 and subnormals -> +0, NaN -> canonical NaN.
uint32_t relu_fp32(uint32_t x);

/// ReLU on int32: negatives -> 0.
int32_t relu_int32(int32_t x);

/// One array column in bf16 mode: acc = +0; for each r in order,
/// acc = fp32_add(acc, bf16_mul(x[r], w_column[r])). Sizes must match.
uint32_t bf16_dot_column(std::span<const uint16_t> x, std::span<const uint16_t> w_column);

}  // namespace mxc
