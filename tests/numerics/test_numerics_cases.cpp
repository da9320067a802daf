// Hand-computed cases for each numerics function. Every expected bit pattern
// was derived on paper from the rules in docs/numerics.md; the comment beside
// each states the value.
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "models/mxu/numerics.h"

using namespace mxc;

TEST_CASE("bf16_mul: normal products are exact", "[numerics][mul]") {
  CHECK(bf16_mul(0x3F80, 0x3F80) == 0x3F800000u);  // 1 x 1 = 1
  CHECK(bf16_mul(0x3FC0, 0x3FC0) == 0x40100000u);  // 1.5 x 1.5 = 2.25
  CHECK(bf16_mul(0x3FFF, 0x3FFF) == 0x407E0100u);  // (255/128)^2 = 65025/16384, all 16 bits kept
  CHECK(bf16_mul(0x4040, 0xBF80) == 0xC0400000u);  // 3 x -1 = -3
  CHECK(bf16_mul(0xC000, 0xC000) == 0x40800000u);  // -2 x -2 = 4
}

TEST_CASE("bf16_mul: subnormal inputs read as zero, sign kept", "[numerics][mul]") {
  CHECK(bf16_mul(0x0001, 0x3F80) == 0x00000000u);
  CHECK(bf16_mul(0x8001, 0x3F80) == 0x80000000u);  // -denormal reads as -0
  CHECK(bf16_mul(0x007F, 0xBF80) == 0x80000000u);
  CHECK(bf16_mul(0x807F, 0xBF80) == 0x00000000u);
}

TEST_CASE("bf16_mul: products below 2^-126 flush, at 2^-126 they do not", "[numerics][mul]") {
  CHECK(bf16_mul(0x0080, 0x3F80) == 0x00800000u);  // 2^-126 x 1 = 2^-126, kept
  CHECK(bf16_mul(0x0080, 0x3F00) == 0x00000000u);  // 2^-126 x 0.5 = 2^-127, flushed
  CHECK(bf16_mul(0x0080, 0xBF00) == 0x80000000u);  // flushed with the product's sign
  CHECK(bf16_mul(0x00FF, 0x3F00) == 0x00000000u);  // 0.996 x 2^-126, flushed
  // (129/128) x (255/256) x 2^-126 = 32895/32768 x 2^-126: just normal.
  CHECK(bf16_mul(0x0081, 0x3F7F) == 0x00807F00u);
  CHECK(bf16_mul(0x0080, 0x0080) == 0x00000000u);  // 2^-252
}

TEST_CASE("bf16_mul: products of 2^128 or more are infinity", "[numerics][mul]") {
  CHECK(bf16_mul(0x7F00, 0x3F80) == 0x7F000000u);  // 2^127
  CHECK(bf16_mul(0x7F00, 0x4000) == 0x7F800000u);  // 2^128
  CHECK(bf16_mul(0x7F00, 0xC000) == 0xFF800000u);
  CHECK(bf16_mul(0x7F7F, 0x3F80) == 0x7F7F0000u);  // largest bf16 fits
  CHECK(bf16_mul(0x7F7F, 0x3FFF) == 0x7F800000u);
}

TEST_CASE("bf16_mul: NaN, infinities and zeros", "[numerics][mul]") {
  CHECK(bf16_mul(0x7F80, 0x0000) == kFp32CanonicalNan);  // inf x 0
  CHECK(bf16_mul(0x8000, 0xFF80) == kFp32CanonicalNan);  // -0 x -inf
  CHECK(bf16_mul(0x7F80, 0x0001) == kFp32CanonicalNan);  // inf x denormal (read as 0)
  CHECK(bf16_mul(0x7FC1, 0x3F80) == kFp32CanonicalNan);  // NaN payload dropped
  CHECK(bf16_mul(0xFFFF, 0x0000) == kFp32CanonicalNan);
  CHECK(bf16_mul(0x7F81, 0x7F80) == kFp32CanonicalNan);  // signalling NaN x inf
  CHECK(bf16_mul(0x7F80, 0xC000) == 0xFF800000u);        // inf x -2
  CHECK(bf16_mul(0xFF80, 0xFF80) == 0x7F800000u);        // -inf x -inf
  CHECK(bf16_mul(0x7F80, 0x0080) == 0x7F800000u);        // inf x smallest normal
  CHECK(bf16_mul(0x8000, 0x3F80) == 0x80000000u);        // -0 x 1
  CHECK(bf16_mul(0x8000, 0x8000) == 0x00000000u);        // -0 x -0
  CHECK(bf16_mul(0x0000, 0x7F7F) == 0x00000000u);
}

TEST_CASE("fp32_add: exact sums", "[numerics][add]") {
  CHECK(fp32_add(0x3F800000u, 0x3F800000u) == 0x40000000u);  // 1 + 1 = 2
  CHECK(fp32_add(0x3FC00000u, 0xBFA00000u) == 0x3E800000u);  // 1.5 - 1.25 = 0.25
  CHECK(fp32_add(0x3F800001u, 0xBF800000u) == 0x34000000u);  // cancellation: 2^-23
  CHECK(fp32_add(0x4B7FFFFFu, 0x3F800000u) == 0x4B800000u);  // 2^24 - 1 + 1 = 2^24
  CHECK(fp32_add(0x3F800000u, 0x00000000u) == 0x3F800000u);
}

TEST_CASE("fp32_add: ties round to even, both ways", "[numerics][add]") {
  // 1 + 2^-24 lies halfway between 1 (even) and 1 + 2^-23: down to 1.
  CHECK(fp32_add(0x3F800000u, 0x33800000u) == 0x3F800000u);
  // (1 + 2^-23) + 2^-24: halfway between ...01 (odd) and ...02: up.
  CHECK(fp32_add(0x3F800001u, 0x33800000u) == 0x3F800002u);
  // 2^24 + 1 = 16777217: between 16777216 (even) and 16777218: down.
  CHECK(fp32_add(0x4B800000u, 0x3F800000u) == 0x4B800000u);
  // 16777218 + 1 = 16777219: between ...18 (odd) and ...20: up, with a carry.
  CHECK(fp32_add(0x4B800001u, 0x3F800000u) == 0x4B800002u);
  // 1 - 2^-25 lies halfway between 1 - 2^-24 (odd) and 1 (even): up to 1.
  CHECK(fp32_add(0x3F800000u, 0xB3000000u) == 0x3F800000u);
  CHECK(fp32_add(0xBF800000u, 0x33000000u) == 0xBF800000u);  // mirrored
}

TEST_CASE("fp32_add: sticky bits break ties", "[numerics][add]") {
  // 1 + 2^-24 (1 + 2^-23): just above halfway, the 2^-47 bit is sticky: up.
  CHECK(fp32_add(0x3F800000u, 0x33800001u) == 0x3F800001u);
  // 1 - 2^-25 (1 + 2^-23): just below halfway: down to 1 - 2^-24.
  CHECK(fp32_add(0x3F800000u, 0xB3000001u) == 0x3F7FFFFFu);
  // Far below half an ulp: no change in either direction.
  CHECK(fp32_add(0x3F800000u, 0x0D800000u) == 0x3F800000u);  // 1 + 2^-100
  CHECK(fp32_add(0x3F800000u, 0x8D800000u) == 0x3F800000u);  // 1 - 2^-100
  CHECK(fp32_add(0xBF800000u, 0x0D800000u) == 0xBF800000u);  // -1 + 2^-100
}

TEST_CASE("fp32_add: subnormal inputs read as zero", "[numerics][add]") {
  CHECK(fp32_add(0x00000001u, 0x00000001u) == 0x00000000u);  // IEEE: 2^-148
  CHECK(fp32_add(0x80000001u, 0x80000001u) == 0x80000000u);  // -0 + -0
  CHECK(fp32_add(0x80000001u, 0x00000000u) == 0x00000000u);  // -0 + +0
  CHECK(fp32_add(0x3F800000u, 0x007FFFFFu) == 0x3F800000u);
  // IEEE would give 2^-149; the subnormal reads as -0, so 2^-126 stays.
  CHECK(fp32_add(0x00800000u, 0x807FFFFFu) == 0x00800000u);
}

TEST_CASE("fp32_add: results below 2^-126 flush to zero with the IEEE sign", "[numerics][add]") {
  CHECK(fp32_add(0x00800001u, 0x80800000u) == 0x00000000u);  // +2^-149
  CHECK(fp32_add(0x80800001u, 0x00800000u) == 0x80000000u);  // -2^-149
  CHECK(fp32_add(0x01000000u, 0x80C00000u) == 0x00000000u);  // 2^-125 - 1.5 x 2^-126 = 2^-127
  CHECK(fp32_add(0x81000000u, 0x00C00000u) == 0x80000000u);
  CHECK(fp32_add(0x01000000u, 0x80800000u) == 0x00800000u);  // exactly 2^-126: kept
  CHECK(fp32_add(0x00800000u, 0x00800000u) == 0x01000000u);
}

TEST_CASE("fp32_add: overflow gives infinity", "[numerics][add]") {
  CHECK(fp32_add(0x7F7FFFFFu, 0x7F7FFFFFu) == 0x7F800000u);
  CHECK(fp32_add(0xFF7FFFFFu, 0xFF7FFFFFu) == 0xFF800000u);
  // max + 2^103 (half its ulp of 2^104): a tie, max is odd, rounds up to 2^128.
  CHECK(fp32_add(0x7F7FFFFFu, 0x73000000u) == 0x7F800000u);
  CHECK(fp32_add(0x7F7FFFFFu, 0x72FFFFFFu) == 0x7F7FFFFFu);  // just below the tie
}

TEST_CASE("fp32_add: infinities and NaN", "[numerics][add]") {
  CHECK(fp32_add(0x7F800000u, 0xFF800000u) == kFp32CanonicalNan);  // inf - inf
  CHECK(fp32_add(0xFF800000u, 0x7F800000u) == kFp32CanonicalNan);
  CHECK(fp32_add(0x7F800000u, 0x7F800000u) == 0x7F800000u);
  CHECK(fp32_add(0x7F800000u, 0xFF7FFFFFu) == 0x7F800000u);
  CHECK(fp32_add(0x3F800000u, 0xFF800000u) == 0xFF800000u);
  CHECK(fp32_add(0xFFC00001u, 0x3F800000u) == kFp32CanonicalNan);
  CHECK(fp32_add(0x7F800001u, 0x7F800000u) == kFp32CanonicalNan);
  CHECK(fp32_add(0x00000000u, 0x7FFFFFFFu) == kFp32CanonicalNan);
}

TEST_CASE("fp32_add: signed zeros", "[numerics][add]") {
  CHECK(fp32_add(0x00000000u, 0x00000000u) == 0x00000000u);
  CHECK(fp32_add(0x80000000u, 0x80000000u) == 0x80000000u);
  CHECK(fp32_add(0x80000000u, 0x00000000u) == 0x00000000u);
  CHECK(fp32_add(0x00000000u, 0x80000000u) == 0x00000000u);
  CHECK(fp32_add(0x3F800000u, 0xBF800000u) == 0x00000000u);  // x - x = +0
  CHECK(fp32_add(0xBF800000u, 0x3F800000u) == 0x00000000u);
  CHECK(fp32_add(0x80000000u, 0xBF800000u) == 0xBF800000u);
}

TEST_CASE("fp32_to_bf16: round to nearest even", "[numerics][cvt]") {
  CHECK(fp32_to_bf16(0x3F800000u) == 0x3F80);
  CHECK(fp32_to_bf16(0x3F808000u) == 0x3F80);  // tie, 0x3F80 even: down
  CHECK(fp32_to_bf16(0x3F818000u) == 0x3F82);  // tie, 0x3F81 odd: up
  CHECK(fp32_to_bf16(0xBF818000u) == 0xBF82);  // negative tie, away from zero to even
  CHECK(fp32_to_bf16(0x3F808001u) == 0x3F81);  // sticky above the tie
  CHECK(fp32_to_bf16(0x3F807FFFu) == 0x3F80);  // just below the tie
  CHECK(fp32_to_bf16(0x3FFFFFFFu) == 0x4000);  // mantissa carry into the exponent
  CHECK(fp32_to_bf16(0x00FFFFFFu) == 0x0100);
  CHECK(fp32_to_bf16(0x00800000u) == 0x0080);  // smallest normal
}

TEST_CASE("fp32_to_bf16: overflow, subnormals, NaN, infinity", "[numerics][cvt]") {
  CHECK(fp32_to_bf16(0x7F7FFFFFu) == 0x7F80);  // rounds past the largest bf16
  CHECK(fp32_to_bf16(0x7F7F8000u) == 0x7F80);  // tie on odd 0x7F7F: up to inf
  CHECK(fp32_to_bf16(0x7F7E8000u) == 0x7F7E);  // tie on even: stays
  CHECK(fp32_to_bf16(0xFF7FFFFFu) == 0xFF80);
  CHECK(fp32_to_bf16(0x007FFFFFu) == 0x0000);  // subnormal reads as zero
  CHECK(fp32_to_bf16(0x807FFFFFu) == 0x8000);
  CHECK(fp32_to_bf16(0x80000000u) == 0x8000);
  CHECK(fp32_to_bf16(0x7F800001u) == kBf16CanonicalNan);  // truncating would give inf
  CHECK(fp32_to_bf16(0xFFFFFFFFu) == kBf16CanonicalNan);
  CHECK(fp32_to_bf16(0x7F800000u) == 0x7F80);
  CHECK(fp32_to_bf16(0xFF800000u) == 0xFF80);
}

TEST_CASE("int32_to_int8: shift rounds to nearest, ties to even", "[numerics][int8]") {
  CHECK(int32_to_int8(0x18, 4) == 2);    // 1.5 -> 2
  CHECK(int32_to_int8(0x28, 4) == 2);    // 2.5 -> 2
  CHECK(int32_to_int8(0x38, 4) == 4);    // 3.5 -> 4
  CHECK(int32_to_int8(-0x18, 4) == -2);  // -1.5 -> -2
  CHECK(int32_to_int8(-0x28, 4) == -2);  // -2.5 -> -2
  CHECK(int32_to_int8(-0x38, 4) == -4);  // -3.5 -> -4
  CHECK(int32_to_int8(0x29, 4) == 3);    // 2.5625: sticky, up
  CHECK(int32_to_int8(0x27, 4) == 2);    // 2.4375
  CHECK(int32_to_int8(-0x29, 4) == -3);
  CHECK(int32_to_int8(-0x27, 4) == -2);
  CHECK(int32_to_int8(3, 1) == 2);    // 1.5
  CHECK(int32_to_int8(5, 1) == 2);    // 2.5
  CHECK(int32_to_int8(1, 1) == 0);    // 0.5
  CHECK(int32_to_int8(-1, 1) == 0);   // -0.5
  CHECK(int32_to_int8(-3, 1) == -2);  // -1.5
  CHECK(int32_to_int8(-1, 31) == 0);  // -2^-31
  CHECK(int32_to_int8(0x40000000, 31) == 0);   // 0.5
  CHECK(int32_to_int8(-0x40000000, 31) == 0);  // -0.5
  CHECK(int32_to_int8(-0x60000000, 31) == -1);  // -0.75
  CHECK(int32_to_int8(INT32_MAX, 31) == 1);    // 1 - 2^-31
  CHECK(int32_to_int8(INT32_MIN, 31) == -1);
}

TEST_CASE("int32_to_int8: saturation at both ends", "[numerics][int8]") {
  CHECK(int32_to_int8(127, 0) == 127);
  CHECK(int32_to_int8(128, 0) == 127);
  CHECK(int32_to_int8(-128, 0) == -128);
  CHECK(int32_to_int8(-129, 0) == -128);
  CHECK(int32_to_int8(INT32_MAX, 0) == 127);
  CHECK(int32_to_int8(INT32_MIN, 0) == -128);
  CHECK(int32_to_int8(INT32_MIN, 24) == -128);  // exactly -128
  CHECK(int32_to_int8(INT32_MIN, 23) == -128);  // -256
  CHECK(int32_to_int8(0x7F80, 8) == 127);       // 127.5 -> 128 (even) -> 127
  CHECK(int32_to_int8(0x7F7F, 8) == 127);
  CHECK(int32_to_int8(-0x7F80, 8) == -128);     // -127.5 -> -128
  CHECK(int32_to_int8(-0x8080, 8) == -128);     // -128.5 -> -128 (even)
  CHECK(int32_to_int8(-0x8180, 8) == -128);     // -129.5 -> -130 -> -128
}

TEST_CASE("relu on fp32 and int32", "[numerics][relu]") {
  CHECK(relu_fp32(0x3F800000u) == 0x3F800000u);
  CHECK(relu_fp32(0xBF800000u) == 0u);
  CHECK(relu_fp32(0x80000000u) == 0u);  // -0 -> +0
  CHECK(relu_fp32(0xFF800000u) == 0u);
  CHECK(relu_fp32(0x7F800000u) == 0x7F800000u);
  CHECK(relu_fp32(0x7F800001u) == kFp32CanonicalNan);
  CHECK(relu_fp32(0xFFC00000u) == kFp32CanonicalNan);  // a negative NaN is still NaN
  CHECK(relu_fp32(0x00000001u) == 0u);                 // subnormal reads as zero
  CHECK(relu_fp32(0x00800000u) == 0x00800000u);
  CHECK(relu_int32(-1) == 0);
  CHECK(relu_int32(INT32_MIN) == 0);
  CHECK(relu_int32(0) == 0);
  CHECK(relu_int32(5) == 5);
  CHECK(relu_int32(INT32_MAX) == INT32_MAX);
}

TEST_CASE("bf16_dot_column: the documented order, top row first", "[numerics][dot]") {
  const std::vector<uint16_t> ones = {0x3F80, 0x3F80, 0x3F80};
  // 1 + 2^-24 + 2^-24: each addition is a tie that rounds back to 1.
  CHECK(bf16_dot_column(std::vector<uint16_t>{0x3F80, 0x3380, 0x3380}, ones) == 0x3F800000u);
  // The small terms first: 2^-24 + 2^-24 = 2^-23 is exact, then 1 + 2^-23.
  CHECK(bf16_dot_column(std::vector<uint16_t>{0x3380, 0x3380, 0x3F80}, ones) == 0x3F800001u);
  // acc starts at +0, so a column of -0 products sums to +0.
  CHECK(bf16_dot_column(std::vector<uint16_t>{0x8000, 0x8000}, std::vector<uint16_t>{0x3F80, 0x3F80}) == 0u);
  CHECK(bf16_dot_column(std::vector<uint16_t>{}, std::vector<uint16_t>{}) == 0u);
  // 2 x 3 + (-1) x 4 + 0.5 x 0.5 = 2.25
  CHECK(bf16_dot_column(std::vector<uint16_t>{0x4000, 0xBF80, 0x3F00},
                        std::vector<uint16_t>{0x4040, 0x4080, 0x3F00}) == 0x40100000u);
  // inf then -inf in the same column: NaN, and NaN stays.
  CHECK(bf16_dot_column(std::vector<uint16_t>{0x7F80, 0x3F80, 0xFF80, 0x3F80}, std::vector<uint16_t>(4, 0x3F80)) ==
        kFp32CanonicalNan);
  CHECK_THROWS_AS(bf16_dot_column(std::vector<uint16_t>{1, 2}, std::vector<uint16_t>{1}), std::invalid_argument);
}
