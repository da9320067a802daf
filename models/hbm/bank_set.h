#pragma once
// Sets of banks as bits, 64 banks a word (bank b is bit b % 64 of word b / 64).
#include <bit>
#include <cstdint>
#include <span>

namespace mxc::hbm {

/// Calls f(bank) for every bank of a set given word by word (`word(w)`,
/// w < words), lowest first, until f returns false: a set combined from
/// others a word at a time, with no set built.
template <class Word, class F>
inline void for_each_bank_of(std::size_t words, Word&& word, F&& f) {
  if (words == 1) {  // up to 64 banks (every preset): no word loop to keep registers for
    for (std::uint64_t m = word(0); m; m &= m - 1)
      if (!f(static_cast<std::uint32_t>(std::countr_zero(m)))) return;
    return;
  }
  for (std::size_t w = 0; w < words; ++w)
    for (std::uint64_t m = word(w); m; m &= m - 1)
      if (!f(static_cast<std::uint32_t>(w * 64 + std::countr_zero(m)))) return;
}

/// Calls f(bank) for every bank in the set, lowest first, until f returns
/// false.
template <class F>
inline void for_each_bank(std::span<const std::uint64_t> set, F&& f) {
  for_each_bank_of(set.size(), [&](std::size_t w) { return set[w]; }, f);
}

}  // namespace mxc::hbm
