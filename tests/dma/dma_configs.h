#pragma once
// The two verilated DMA configurations (see CMakeLists.txt) as bench types.
#include "Vmxu_dma_test_w256.h"
#include "Vmxu_dma_test_w64.h"
#include "tests/dma/dma_bench.h"

namespace mxc::test {

/// 256-bit bus, 4 banks (128-byte scratchpad rows), 256 rows, 16 IDs.
using Bench256 = DmaBench<Vmxu_dma_test_w256, 32, 4, 256, 16>;
/// 64-bit bus, 512 banks (4 KiB rows), 16 rows, 4 IDs of 8 encodable.
using Bench64 = DmaBench<Vmxu_dma_test_w64, 8, 512, 16, 4>;

}  // namespace mxc::test
