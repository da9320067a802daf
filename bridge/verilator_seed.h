#pragma once
// The seed of a verilated model's randomised initial state (--x-initial unique), from a run's.
#include <cstdint>

namespace mxc {

/// VerilatedContext::randSeed takes a positive int, and 0 there means "seed from the host's
/// random source": each model made afterwards, even in one process (the failure waveform's
/// re-run), would start from another state. Seeds fold into [1, 2^31 - 1]; those that would
/// fold to 0 take 2^31 - 1, which no other seed folds to.
constexpr int verilator_seed(std::uint64_t seed) {
  const auto folded = static_cast<int>(seed % 0x7fffffff);
  return folded != 0 ? folded : 0x7fffffff;
}

}  // namespace mxc
