// The C++ numerics model against an independent oracle: the host's IEEE
// arithmetic with DAZ/FTZ and NaN canonicalisation applied around it
// (host_oracle.h), on millions of random and edge-biased operands.
#include <catch2/catch.hpp>

#include <cfenv>
#include <cstdint>
#include <cstdio>
#include <string>

#include "models/mxu/numerics.h"
#include "tests/numerics/host_oracle.h"
#include "tests/numerics/operand_gen.h"

using namespace mxc;
using namespace mxc::test;

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v));
  return buf;
}

// Counts mismatches and keeps the first, so a bug reports one case, not millions.
struct Tally {
  uint64_t checked = 0;
  uint64_t mismatches = 0;
  std::string first;
  // `describe` builds the message only for the first mismatch.
  template <class Describe>
  void record(bool ok, Describe&& describe) {
    ++checked;
    if (!ok && mismatches++ == 0) first = describe();
  }
};

}  // namespace

TEST_CASE("oracle: the host arithmetic is IEEE round-to-nearest with subnormals", "[numerics][oracle]") {
  // The oracle is only independent if the host does not flush on its own.
  REQUIRE(std::fegetround() == FE_TONEAREST);
  volatile float tiny = f32(0x00000001u);
  REQUIRE(bits32(tiny + tiny) == 0x00000002u);
  volatile float one = 1.0f, half_ulp = f32(0x33800000u);
  REQUIRE(bits32(one + half_ulp) == 0x3F800000u);
}

TEST_CASE("oracle: fp32_add matches the host on 24M edge-biased pairs", "[numerics][oracle][add]") {
  OperandGen gen(0xADD5EEDull);
  Tally t;
  for (int i = 0; i < 12'000'000; ++i) {
    const uint32_t a = gen.fp32();
    const uint32_t b = (i & 1) ? gen.fp32() : gen.fp32_near(a);
    for (const auto& xy : {std::pair{a, b}, std::pair{b, a}}) {
      const uint32_t x = xy.first, y = xy.second;
      const uint32_t got = fp32_add(x, y), want = oracle_fp32_add(x, y);
      t.record(got == want, [&] { return hex(x) + " + " + hex(y) + " = " + hex(got) + ", oracle " + hex(want); });
    }
  }
  INFO("first mismatch: " << t.first);
  CHECK(t.mismatches == 0);
  CHECK(t.checked == 24'000'000u);
}

TEST_CASE("oracle: bf16_mul matches the host for every bf16 times 256 others", "[numerics][oracle][mul]") {
  OperandGen gen(0x3D17ull);
  uint16_t others[256];
  for (uint16_t& b : others) b = gen.bf16();
  Tally t;
  for (uint32_t a = 0; a < 0x10000u; ++a) {
    for (const uint16_t b : others) {
      const uint32_t got = bf16_mul(static_cast<uint16_t>(a), b);
      const uint32_t want = oracle_bf16_mul(static_cast<uint16_t>(a), b);
      t.record(got == want, [&] { return hex(a) + " x " + hex(b) + " = " + hex(got) + ", oracle " + hex(want); });
    }
  }
  INFO("first mismatch: " << t.first);
  CHECK(t.mismatches == 0);
}

TEST_CASE("oracle: bf16_mul matches the host on 8M edge-biased pairs", "[numerics][oracle][mul]") {
  OperandGen gen(0xB16ull);
  Tally t;
  for (int i = 0; i < 8'000'000; ++i) {
    const uint16_t a = gen.bf16(), b = gen.bf16();
    const uint32_t got = bf16_mul(a, b), want = oracle_bf16_mul(a, b);
    t.record(got == want, [&] { return hex(a) + " x " + hex(b) + " = " + hex(got) + ", oracle " + hex(want); });
  }
  INFO("first mismatch: " << t.first);
  CHECK(t.mismatches == 0);
}

TEST_CASE("oracle: fp32_to_bf16 matches the host on every upper half with edge lower halves",
          "[numerics][oracle][cvt]") {
  static constexpr uint32_t kLow[] = {0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x4000, 0xC000};
  Tally t;
  for (uint32_t hi = 0; hi < 0x10000u; ++hi) {
    for (const uint32_t lo : kLow) {
      const uint32_t x = (hi << 16) | lo;
      const uint16_t got = fp32_to_bf16(x), want = oracle_fp32_to_bf16(x);
      t.record(got == want, [&] { return hex(x) + " -> " + hex(got) + ", oracle " + hex(want); });
    }
  }
  OperandGen gen(0xC0F7ull);
  for (int i = 0; i < 8'000'000; ++i) {
    const uint32_t x = gen.fp32();
    const uint16_t got = fp32_to_bf16(x), want = oracle_fp32_to_bf16(x);
    t.record(got == want, [&] { return hex(x) + " -> " + hex(got) + ", oracle " + hex(want); });
  }
  INFO("first mismatch: " << t.first);
  CHECK(t.mismatches == 0);
}

TEST_CASE("oracle: int32_to_int8 matches exact rational rounding", "[numerics][oracle][int8]") {
  // Independent rule: compare 2 * remainder with the divisor in 64-bit
  // integers (floor division), ties to the even quotient, then clamp.
  OperandGen gen(0x1285ull);
  Tally t;
  for (int i = 0; i < 4'000'000; ++i) {
    const unsigned shift = static_cast<unsigned>(gen.bits() % 32);
    const int32_t x = gen.int32_for_shift(shift);
    const int64_t d = int64_t{1} << shift;
    int64_t q = x / d;
    int64_t r = x % d;
    if (r < 0) {  // C++ truncates; make it floor with 0 <= r < d
      q -= 1;
      r += d;
    }
    if (2 * r > d || (2 * r == d && (q & 1) != 0)) q += 1;
    const int64_t want = q > 127 ? 127 : (q < -128 ? -128 : q);
    const int8_t got = int32_to_int8(x, shift);
    t.record(got == want, [&] { return hex(static_cast<uint32_t>(x)) + " >> " + std::to_string(shift) + " = " +
                              std::to_string(got) + ", expected " + std::to_string(want); });
  }
  INFO("first mismatch: " << t.first);
  CHECK(t.mismatches == 0);
}
