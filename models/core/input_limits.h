#pragma once
// Bounds on what is read from users' files, so that a wrong path (a device
// such as /dev/zero, a data file) fails with an error naming it instead of
// being read into memory whole.
#include <cstddef>

namespace mxc {

/// The longest line of a line-oriented input (traces, programs), newline
/// excluded: a longer one is most likely not such a file at all.
inline constexpr std::size_t kMaxInputLine = 4095;

/// The largest config or suite file read (they are a few KB).
inline constexpr std::size_t kMaxConfigBytes = std::size_t{16} << 20;

}  // namespace mxc
