// The RTL numerics modules (verilated numerics_harness.sv) against the C++
// model, bit for bit: random and edge-biased vectors through all five modules
// and the PE's multiply-accumulate at once, and a structured exhaustive sweep
// of the bf16 product and fp32 sum over every exponent pair.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "Vnumerics_harness.h"
#include "models/mxu/numerics.h"
#include "tests/numerics/operand_gen.h"
#include "verilated.h"

using namespace mxc;
using namespace mxc::test;

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v));
  return buf;
}

class Harness {
 public:
  Harness() : m_ctx(std::make_unique<VerilatedContext>()), m_top(std::make_unique<Vnumerics_harness>(m_ctx.get())) {}
  ~Harness() { m_top->final(); }
  Vnumerics_harness& top() { return *m_top; }

  // Checks every output against the C++ model; returns "" or a description.
  std::string check() {
    Vnumerics_harness& t = *m_top;
    t.eval();
    const auto mul_a = static_cast<uint16_t>(t.mul_a), mul_b = static_cast<uint16_t>(t.mul_b);
    if (t.mul_y != bf16_mul(mul_a, mul_b))
      return "mul " + hex(mul_a) + " x " + hex(mul_b) + ": rtl " + hex(t.mul_y) + ", c++ " + hex(bf16_mul(mul_a, mul_b));
    if (t.add_y != fp32_add(t.add_a, t.add_b))
      return "add " + hex(t.add_a) + " + " + hex(t.add_b) + ": rtl " + hex(t.add_y) + ", c++ " +
             hex(fp32_add(t.add_a, t.add_b));
    if (t.cvt_y != fp32_to_bf16(t.cvt_x))
      return "cvt " + hex(t.cvt_x) + ": rtl " + hex(t.cvt_y) + ", c++ " + hex(fp32_to_bf16(t.cvt_x));
    const int8_t i8 = int32_to_int8(static_cast<int32_t>(t.i8_x), t.i8_shift);
    if (static_cast<int8_t>(t.i8_y) != i8)
      return "int8 " + hex(t.i8_x) + " >> " + std::to_string(t.i8_shift) + ": rtl " +
             std::to_string(static_cast<int8_t>(t.i8_y)) + ", c++ " + std::to_string(i8);
    const uint32_t relu = t.relu_is_float ? relu_fp32(t.relu_x)
                                          : static_cast<uint32_t>(relu_int32(static_cast<int32_t>(t.relu_x)));
    if (t.relu_y != relu)
      return "relu " + hex(t.relu_x) + " float " + std::to_string(t.relu_is_float) + ": rtl " + hex(t.relu_y) +
             ", c++ " + hex(relu);
    const uint32_t pe = pe_mac(t.pe_psum, static_cast<uint16_t>(t.pe_a), static_cast<uint16_t>(t.pe_w), t.pe_bf16);
    if (t.pe_y != pe)
      return "pe " + hex(t.pe_psum) + " + " + hex(t.pe_a) + " x " + hex(t.pe_w) + " bf16 " + std::to_string(t.pe_bf16) +
             ": rtl " + hex(t.pe_y) + ", expected " + hex(pe);
    return "";
  }

  // One PE step from the documented arithmetic (docs/numerics.md): int8 lanes
  // are the signed low bytes, products and sums wrap in 32 bits.
  static uint32_t pe_mac(uint32_t psum, uint16_t a, uint16_t w, bool is_bf16) {
    if (is_bf16) return fp32_add(psum, bf16_mul(a, w));
    const int32_t product = int32_t{static_cast<int8_t>(a & 0xff)} * int32_t{static_cast<int8_t>(w & 0xff)};
    return psum + static_cast<uint32_t>(product);
  }

 private:
  std::unique_ptr<VerilatedContext> m_ctx;
  std::unique_ptr<Vnumerics_harness> m_top;
};

struct Tally {
  uint64_t mismatches = 0;
  std::string first;
  void record(const std::string& err) {
    if (!err.empty() && mismatches++ == 0) first = err;
  }
};

}  // namespace

TEST_CASE("rtl: all numerics modules match the C++ model on 1M edge-biased vectors", "[numerics][rtl]") {
  Harness h;
  Vnumerics_harness& t = h.top();
  OperandGen gen(0x5EEDull);
  Tally tally;
  for (int i = 0; i < 1'000'000; ++i) {
    t.mul_a = gen.bf16();
    t.mul_b = gen.bf16();
    t.add_a = gen.fp32();
    t.add_b = (i & 1) ? gen.fp32() : gen.fp32_near(t.add_a);
    t.cvt_x = gen.fp32();
    const unsigned shift = static_cast<unsigned>(gen.bits() % 32);
    t.i8_shift = static_cast<uint8_t>(shift);
    t.i8_x = static_cast<uint32_t>(gen.int32_for_shift(shift));
    t.relu_is_float = (i >> 1) & 1;
    t.relu_x = (i & 4) ? static_cast<uint32_t>(gen.bits()) : gen.fp32();
    t.pe_bf16 = (i >> 3) & 1;
    t.pe_psum = t.pe_bf16 ? gen.fp32() : static_cast<uint32_t>(gen.bits());
    t.pe_a = t.pe_bf16 ? gen.bf16() : static_cast<uint16_t>(gen.bits());
    t.pe_w = t.pe_bf16 ? gen.bf16() : static_cast<uint16_t>(gen.bits());
    tally.record(h.check());
  }
  INFO("first mismatch: " << tally.first);
  CHECK(tally.mismatches == 0);
}

TEST_CASE("rtl: every exponent pair of bf16_mul and fp32_add, edge mantissas, both signs", "[numerics][rtl]") {
  Harness h;
  Vnumerics_harness& t = h.top();
  static constexpr uint32_t kBf16Mant[] = {0x00, 0x01, 0x40, 0x7F};
  static constexpr uint32_t kFp32Mant[] = {0x000000, 0x000001, 0x400000, 0x7FFFFF};
  Tally tally;
  uint64_t vectors = 0;
  for (uint32_t ea = 0; ea < 256; ++ea) {
    for (uint32_t eb = 0; eb < 256; ++eb) {
      for (uint32_t m = 0; m < 16; ++m) {
        for (uint32_t s = 0; s < 2; ++s) {  // operands of equal, then opposite sign
          t.mul_a = static_cast<uint16_t>((ea << 7) | kBf16Mant[m & 3]);
          t.mul_b = static_cast<uint16_t>((s << 15) | (eb << 7) | kBf16Mant[m >> 2]);
          t.add_a = (ea << 23) | kFp32Mant[m & 3];
          t.add_b = (s << 31) | (eb << 23) | kFp32Mant[m >> 2];
          t.cvt_x = t.add_a ^ (t.add_b >> 9);
          t.i8_x = t.add_b;
          t.i8_shift = static_cast<uint8_t>(ea & 31);
          t.relu_x = t.add_b;
          t.relu_is_float = m & 1;
          t.pe_psum = t.add_a;
          t.pe_a = t.mul_a;
          t.pe_w = t.mul_b;
          t.pe_bf16 = (m >> 1) & 1;
          tally.record(h.check());
          ++vectors;
        }
      }
    }
  }
  INFO("first mismatch: " << tally.first);
  CHECK(tally.mismatches == 0);
  CHECK(vectors == 256u * 256u * 32u);
}

TEST_CASE("rtl: hand-picked cases reach the RTL too", "[numerics][rtl]") {
  // A few rows of test_numerics_cases.cpp with their paper-derived values,
  // checked on the RTL outputs directly rather than through the C++ model.
  Harness h;
  Vnumerics_harness& t = h.top();
  t.mul_a = 0x3FFF;
  t.mul_b = 0x3FFF;
  t.add_a = 0x3F800001u;  // (1 + 2^-23) + 2^-24: tie, up to even
  t.add_b = 0x33800000u;
  t.cvt_x = 0x7F7F8000u;  // tie on odd largest bf16: infinity
  t.i8_x = static_cast<uint32_t>(-0x28);
  t.i8_shift = 4;  // -2.5 -> -2
  t.relu_x = 0xFFC00000u;
  t.relu_is_float = 1;
  t.eval();
  CHECK(t.mul_y == 0x407E0100u);
  CHECK(t.add_y == 0x3F800002u);
  CHECK(t.cvt_y == 0x7F80u);
  CHECK(static_cast<int8_t>(t.i8_y) == -2);
  CHECK(t.relu_y == 0x7FC00000u);
  t.add_a = 0x80800001u;  // -2^-149 after cancellation: flushed to -0
  t.add_b = 0x00800000u;
  t.relu_is_float = 0;  // the same bits as an int32 are negative: 0
  t.eval();
  CHECK(t.add_y == 0x80000000u);
  CHECK(t.relu_y == 0u);
}
