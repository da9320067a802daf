#pragma once
// The 64-bit Mersenne Twister (the numbers of std::mt19937_64 with the same
// seed), made a block at a time. Traffic sources draw about ten numbers per
// packet at low load (one Bernoulli trial per packet slot), so the draws
// are a fair share of a run: here the 312-word state is twisted and
// tempered two words at a time, a draw is a load, and a run of failed
// Bernoulli trials is a scan of the tempered block.
#include <cstdint>
#include <cstring>

namespace mxc::ici {

class BlockMt64 {
 public:
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }

  explicit BlockMt64(std::uint64_t seed) {
    m_x[0] = seed;
    for (std::uint32_t i = 1; i < kN; ++i) m_x[i] = kF * (m_x[i - 1] ^ (m_x[i - 1] >> 62)) + i;
  }

  result_type operator()() {
    if (m_next == kN) refill();
    return m_out[m_next++];
  }

  /// Draws until a number below `threshold` comes and returns how many
  /// came before it: `while (rng() >= threshold) ++n;` in fewer steps.
  /// Gives up after `limit` numbers at or above it and returns `limit`
  /// (so a result below `limit` means one below `threshold` was drawn).
  std::uint64_t count_at_least(std::uint64_t threshold, std::uint64_t limit = ~std::uint64_t{0}) {
    std::uint64_t n = 0;
    while (n < limit) {
      if (m_next == kN) refill();
      std::uint32_t i = m_next;
      const std::uint32_t end = limit - n < kN - m_next ? m_next + static_cast<std::uint32_t>(limit - n) : kN;
      while (i < end && m_out[i] >= threshold) ++i;
      n += i - m_next;
      if (i < end) {
        m_next = i + 1;
        return n;
      }
      m_next = end;
    }
    return n;
  }

 private:
  static constexpr std::uint32_t kN = 312, kM = 156;
  static constexpr std::uint64_t kA = 0xB5026F5AA96619E9ull, kF = 6364136223846793005ull;
  static constexpr std::uint64_t kUpper = ~std::uint64_t{0} << 31, kLower = ~kUpper;

  // Two words at a time (GCC/Clang vector extension; SSE2 on x86-64): the
  // words a twist step reads are at least two places away from the ones
  // it writes, so pairs give the numbers of the word-by-word recurrence.
  using Pair = std::uint64_t __attribute__((vector_size(16)));
  static Pair load(const std::uint64_t* p) {
    Pair v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(std::uint64_t* p, Pair v) { std::memcpy(p, &v, sizeof v); }
  template <class W>
  static W twist(W cur, W next, W far) {
    const W y = (cur & kUpper) | (next & kLower);
    return far ^ (y >> 1) ^ ((W{} - (y & 1)) & kA);
  }
  void refill() {
    std::uint32_t i = 0;
    for (; i < kN - kM; i += 2) store(&m_x[i], twist(load(&m_x[i]), load(&m_x[i + 1]), load(&m_x[i + kM])));
    for (; i + 2 < kN; i += 2) store(&m_x[i], twist(load(&m_x[i]), load(&m_x[i + 1]), load(&m_x[i + kM - kN])));
    m_x[kN - 2] = twist<std::uint64_t>(m_x[kN - 2], m_x[kN - 1], m_x[kM - 2]);
    m_x[kN - 1] = twist<std::uint64_t>(m_x[kN - 1], m_x[0], m_x[kM - 1]);
    for (i = 0; i < kN; i += 2) {
      Pair z = load(&m_x[i]);
      z ^= (z >> 29) & 0x5555555555555555ull;
      z ^= (z << 17) & 0x71D67FFFEDA60000ull;
      z ^= (z << 37) & 0xFFF7EEE000000000ull;
      store(&m_out[i], z ^ (z >> 43));
    }
    m_next = 0;
  }

  std::uint64_t m_x[kN];    // state
  std::uint64_t m_out[kN];  // tempered outputs of the current block
  std::uint32_t m_next = kN;
};

}  // namespace mxc::ici
