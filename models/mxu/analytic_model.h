#pragma once
// Closed-form cycles and HBM traffic of a GEMM on an R x C weight-stationary
// array (docs/workloads.md, "Analytical model"). Without weight double
// buffering each fold costs 2R + C + m - 2 cycles, the count SCALE-Sim
// (scale-sim-v2) uses: R to shift the weights in, m to stream the inputs,
// R + C - 2 to fill and drain. With double buffering the next fold's weights
// shift in while the current fold drains, once the fold that last used
// their buffer (two folds back) has left the array.
#include <cstdint>

#include "models/ici/ici_config.h"
#include "models/mxu/isa.h"

namespace mxc {

struct AnalyticConfig {
  std::uint32_t rows = 128, cols = 128;  ///< Array R x C.
  std::uint32_t m = 0, k = 0, n = 0;
  DType dtype = DType::kBf16;
  bool double_buffer = true;
  /// Rows of A streamed per fold (the accumulator depth); 0 = all of M at once, as SCALE-Sim.
  std::uint32_t m_block = 0;
  /// Bytes of each C element written: 4 (int32 / fp32), or 1 / 2 for a
  /// result narrowed to int8 / bf16 (an MLP's hidden layer).
  std::uint32_t out_bytes = 4;
  /// HBM rows are moved in whole beats of this many bytes (1 = exact element bytes).
  std::uint32_t beat_bytes = 1;
  double clock_mhz = 1000.0;
  double hbm_gbps = 0.0;  ///< HBM bandwidth in GB/s; 0 = unlimited (no memory bound).
  /// Bytes the tile's DMA moves per cycle (one AXI beat; loads and stores in
  /// program order share it); 0 = unlimited.
  std::uint32_t port_bytes_per_cycle = 0;
  /// Multi-chip: the GEMM split over `chips` (K or N), then the compiled
  /// collective of the 32-bit result (multichip_program.h) over ICI links of
  /// ici_gbps each: a K split's reduction owner by owner, an N split's
  /// all-gather round by round, each row a packet with a header.
  std::uint32_t chips = 1;
  bool split_k = true;
  double ici_gbps = 45.0;
  /// Header bytes of each ICI packet, and the largest payload of one (a
  /// longer row is cut into several): the fabric's, as the performance model runs it.
  std::uint32_t ici_header_bytes = ici::IciConfig{}.header_bytes;
  std::uint32_t ici_max_payload_bytes = ici::IciConfig{}.max_payload_bytes;
};

struct AnalyticResult {
  std::uint64_t folds = 0;               ///< ceil(M/m_block) * ceil(K/R) * ceil(N/C).
  std::uint64_t compute_cycles = 0;      ///< Array cycles of one chip's GEMM.
  std::uint64_t scalesim_total_cycles = 0;  ///< What SCALE-Sim prints as "Total Cycles": folds' sum minus 1 (no double buffering).
  std::uint64_t hbm_read_bytes = 0, hbm_write_bytes = 0;  ///< One chip's.
  /// Wire bytes (payloads and packet headers) the collective moves one after
  /// another on its busiest link, in its protocol's order.
  std::uint64_t ici_bytes = 0;
  std::uint64_t ici_cycles = 0;          ///< ici_bytes at ici_gbps: after the array and the memory.
  std::uint64_t memory_bound_cycles = 0; ///< (read + write bytes) / min(HBM bandwidth, DMA port rate).
  std::uint64_t compute_bound_cycles = 0;///< MACs / (R * C): a perfectly fed array.
  std::uint64_t roofline_cycles = 0;     ///< max(compute bound, memory bound) + collective.
  std::uint64_t cycles = 0;              ///< max(compute cycles, memory bound) + collective cycles.
  double utilization = 0;                ///< MACs / (R * C * cycles), per chip.
  double arithmetic_intensity = 0;       ///< MACs per HBM byte.
};

/// Throws std::invalid_argument naming the bad field.
AnalyticResult analyze_gemm(const AnalyticConfig& cfg);

}  // namespace mxc
