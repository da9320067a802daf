#pragma once
// A select without a branch, for choices that are data. GCC compiles
// `take ? a : b` to a conditional jump where it guesses one side likely;
// where the condition follows the simulated traffic, such jumps are
// mispredicted a third of the time or more (callgrind's branch
// simulation, docs/hbm-speed.md).
#include <cstdint>
#include <type_traits>

namespace mxc::hbm {

/// `take ? a : b` by masks, for unsigned integers and enums over them.
template <class T>
inline T select(bool take, T a, T b) {
  if constexpr (std::is_enum_v<T>) {
    using U = std::underlying_type_t<T>;
    return static_cast<T>(select<U>(take, static_cast<U>(a), static_cast<U>(b)));
  } else {
    static_assert(std::is_unsigned_v<T>);
    const T mask = static_cast<T>(T{0} - static_cast<T>(take));
    return static_cast<T>((a & mask) | (b & static_cast<T>(~mask)));
  }
}

}  // namespace mxc::hbm
