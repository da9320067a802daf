#pragma once
// Makes the verilated MXU core of a given size. The sizes available are
// fixed when the project is configured (MXCOSIM_RTL_SIZES).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bridge/rtl_core_port.h"

namespace mxc {

/// (rows, cols) of every verilated size in this build, ascending.
std::vector<std::pair<std::uint32_t, std::uint32_t>> rtl_core_sizes();

/// Throws std::invalid_argument listing the available sizes when rows x cols
/// was not verilated. `seed` seeds Verilator's randomised initial state.
std::unique_ptr<RtlCorePort> make_rtl_core(std::uint32_t rows, std::uint32_t cols, std::uint64_t seed);

}  // namespace mxc
