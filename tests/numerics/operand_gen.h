#pragma once
// Edge-biased random operands for the numerics tests: exponents and
// mantissas near the boundaries where the rules change (zero, subnormal,
// smallest normal, 1.0, largest finite, inf/NaN), pairs in nearby binades
// so sums cancel and round, plus plain random bits. std::mt19937_64 raw
// output only, so every run draws the same operands.

#include <cstdint>
#include <random>

namespace mxc::test {

class OperandGen {
 public:
  explicit OperandGen(uint64_t seed) : m_rng(seed) {}

  uint64_t bits() { return m_rng(); }

  /// An fp32 pattern; half of them from edge exponents and mantissas.
  uint32_t fp32() {
    const uint64_t r = m_rng();
    if ((r & 3) == 0) return static_cast<uint32_t>(r >> 32);
    const uint32_t sign = static_cast<uint32_t>((r >> 2) & 1) << 31;
    return sign | (edge_exp(r >> 3) << 23) | fp32_mantissa(r >> 16);
  }

  /// A second fp32 operand close to `a` in magnitude (exponent within a few
  /// binades, mantissa often near a's), either sign: cancellation and ties.
  uint32_t fp32_near(uint32_t a) {
    const uint64_t r = m_rng();
    const int delta = static_cast<int>((r >> 3) % 61) - 30;
    const int spread = (r & 4) ? 3 : 26;
    int exp = static_cast<int>((a >> 23) & 0xFF) + (delta % (spread + 1));
    exp = exp < 0 ? 0 : (exp > 255 ? 255 : exp);
    uint32_t mant = a & 0x7FFFFF;
    switch ((r >> 10) & 3) {
      case 0: mant = fp32_mantissa(r >> 12); break;
      case 1: mant = (mant + static_cast<uint32_t>((r >> 12) & 7) - 3) & 0x7FFFFF; break;
      case 2: mant = mant ^ (1u << ((r >> 12) % 23)); break;
      default: break;
    }
    const uint32_t sign = static_cast<uint32_t>((r >> 40) & 1) << 31;
    return sign | (static_cast<uint32_t>(exp) << 23) | mant;
  }

  /// A bf16 pattern; half of them from edge exponents and mantissas.
  uint16_t bf16() {
    const uint64_t r = m_rng();
    if ((r & 3) == 0) return static_cast<uint16_t>(r >> 48);
    const uint32_t sign = static_cast<uint32_t>((r >> 2) & 1) << 15;
    static constexpr uint32_t kMant[] = {0x00, 0x01, 0x7F, 0x40, 0x3F, 0x7E, 0x41};
    const uint32_t mant = (r & 8) ? kMant[(r >> 16) % 7] : static_cast<uint32_t>((r >> 24) & 0x7F);
    return static_cast<uint16_t>(sign | (edge_exp(r >> 32) << 7) | mant);
  }

  /// An int32 biased toward ties and the int8 saturation edges for `shift`.
  int32_t int32_for_shift(unsigned shift) {
    const uint64_t r = m_rng();
    switch (r & 3) {
      case 0: return static_cast<int32_t>(static_cast<uint32_t>(r >> 32));
      case 1: {  // an exact tie or one off it, around a random int8 result
        const int64_t q = static_cast<int64_t>((r >> 8) % 300) - 150;
        const int64_t half = shift ? (int64_t{1} << (shift - 1)) : 0;
        const int64_t off = static_cast<int64_t>((r >> 20) % 3) - 1;
        return clamp32(q * (int64_t{1} << shift) + half + off);
      }
      case 2: {  // a small value that the shift brings near zero
        return static_cast<int32_t>(static_cast<int64_t>((r >> 8) % 4096) - 2048);
      }
      default: {  // near the int8 limits after the shift
        const int64_t q = ((r >> 8) & 1) ? 127 : -128;
        const int64_t off = static_cast<int64_t>((r >> 16) % 5) - 2;
        return clamp32((q + off) * (int64_t{1} << shift) + static_cast<int64_t>((r >> 24) % 5) - 2);
      }
    }
  }

 private:
  static uint32_t edge_exp(uint64_t r) {
    static constexpr uint32_t kExp[] = {0, 1, 2, 126, 127, 128, 253, 254, 255, 24, 25};
    return (r & 1) ? kExp[(r >> 1) % 11] : static_cast<uint32_t>((r >> 8) & 0xFF);
  }
  static uint32_t fp32_mantissa(uint64_t r) {
    static constexpr uint32_t kMant[] = {0x000000, 0x000001, 0x7FFFFF, 0x400000, 0x3FFFFF,
                                         0x008000, 0x007FFF, 0x018000, 0x7F8000, 0x7FFFFE};
    if (r & 1) return kMant[(r >> 1) % 10];
    // Random, with the low bits often cleared so exponent gaps make exact ties.
    const uint32_t m = static_cast<uint32_t>(r >> 8) & 0x7FFFFF;
    return (r & 2) ? m & ~((1u << ((r >> 40) % 23)) - 1) : m;
  }
  static int32_t clamp32(int64_t v) {
    if (v > INT32_MAX) return INT32_MAX;
    if (v < INT32_MIN) return INT32_MIN;
    return static_cast<int32_t>(v);
  }

  std::mt19937_64 m_rng;
};

}  // namespace mxc::test
