#include "models/mxu/analytic_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mxc {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return ceil_div(v, a) * a; }

/// Cycles to move `bytes` at `gbps` GB/s with a `mhz` clock, rounded up.
std::uint64_t transfer_cycles(std::uint64_t bytes, double gbps, double mhz) {
  if (gbps <= 0 || bytes == 0) return 0;
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(bytes) * mhz / (gbps * 1000.0) - 1e-9));
}

}  // namespace

AnalyticResult analyze_gemm(const AnalyticConfig& c) {
  const auto need = [](bool ok, const char* field, const char* why) {
    if (!ok) throw std::invalid_argument(std::string("analytic model: ") + field + " " + why);
  };
  need(c.rows >= 1, "rows", "must be >= 1");
  need(c.cols >= 1, "cols", "must be >= 1");
  need(c.m >= 1, "m", "must be >= 1");
  need(c.k >= 1, "k", "must be >= 1");
  need(c.n >= 1, "n", "must be >= 1");
  need(c.beat_bytes >= 1, "beat_bytes", "must be >= 1");
  need(c.clock_mhz > 0, "clock_mhz", "must be > 0");
  need(c.hbm_gbps >= 0, "hbm_gbps", "must be >= 0");
  need(c.chips >= 1, "chips", "must be >= 1");
  need(c.chips == 1 || c.ici_gbps > 0, "ici_gbps", "must be > 0 with more than one chip");

  // One chip's share: K split gives each chip K / chips, N split N / chips
  // (the largest share when they do not divide evenly).
  const std::uint64_t R = c.rows, C = c.cols, M = c.m;
  const std::uint64_t K = c.split_k ? ceil_div(c.k, c.chips) : c.k;
  const std::uint64_t N = c.split_k ? c.n : ceil_div(c.n, c.chips);
  const std::uint64_t mb = c.m_block ? std::min<std::uint64_t>(c.m_block, M) : M;
  const std::uint64_t eb = c.dtype == DType::kBf16 ? 2 : 1;
  const std::uint64_t beat = c.beat_bytes;

  AnalyticResult r;
  const std::uint64_t kf = ceil_div(K, R), nf = ceil_div(N, C), mblocks = ceil_div(M, mb);
  r.folds = mblocks * kf * nf;

  // Folds in program order: M blocks outer, then N, then K; fold f streams m_f rows.
  std::uint64_t sum_plain = 0, sum_overlap = 0, last_m = 0;
  for (std::uint64_t b = 0; b < mblocks; ++b) {
    const std::uint64_t m_f = std::min(mb, M - b * mb);
    const std::uint64_t count = kf * nf;
    sum_plain += count * (2 * R + C + m_f - 2);
    // With double buffering fold f+1 starts streaming max(m_f, R) after fold f
    // (its R-cycle weight shift overlaps fold f's streaming).
    sum_overlap += count * std::max(m_f, R);
    last_m = m_f;
  }
  if (c.double_buffer) {
    // R to shift the first weights, the folds back to back, then the last
    // fold's tail: it streams last_m (not max(last_m, R)) and drains R + C - 2.
    r.compute_cycles = R + sum_overlap - std::max(last_m, R) + last_m + R + C - 2;
  } else {
    r.compute_cycles = sum_plain;
  }
  r.scalesim_total_cycles = sum_plain - 1;

  // HBM traffic as the GEMM compiler moves it: per fold an A block (m_f rows
  // of kb elements) and a B block (kb rows of nb elements), each row rounded
  // up to whole beats; C written once, 32-bit, per N fold in rows of nb.
  for (std::uint64_t b = 0; b < mblocks; ++b) {
    const std::uint64_t m_f = std::min(mb, M - b * mb);
    for (std::uint64_t nfi = 0; nfi < nf; ++nfi) {
      const std::uint64_t nb = std::min(C, N - nfi * C);
      for (std::uint64_t kfi = 0; kfi < kf; ++kfi) {
        const std::uint64_t kb = std::min(R, K - kfi * R);
        r.hbm_read_bytes += m_f * round_up(kb * eb, beat) + kb * round_up(nb * eb, beat);
      }
      r.hbm_write_bytes += m_f * round_up(nb * 4, beat);
    }
  }

  const double macs = static_cast<double>(M) * static_cast<double>(K) * static_cast<double>(N);
  r.compute_bound_cycles = ceil_div(M * K * N, R * C);
  const std::uint64_t bytes = r.hbm_read_bytes + r.hbm_write_bytes;
  r.memory_bound_cycles = transfer_cycles(bytes, c.hbm_gbps, c.clock_mhz);
  if (c.port_bytes_per_cycle) r.memory_bound_cycles = std::max(r.memory_bound_cycles, ceil_div(bytes, c.port_bytes_per_cycle));
  if (c.chips > 1) {
    // Ring reduce-scatter or all-gather of the M x N 32-bit result: each chip
    // sends (p - 1) / p of it (REFERENCE.md, alpha-beta costs; alpha ignored).
    const std::uint64_t full = std::uint64_t{c.m} * c.n * 4;
    r.ici_bytes = full * (c.chips - 1) / c.chips;
    r.ici_cycles = transfer_cycles(r.ici_bytes, c.ici_gbps, c.clock_mhz);
  }
  r.roofline_cycles = std::max(r.compute_bound_cycles, r.memory_bound_cycles) + r.ici_cycles;
  r.cycles = std::max(r.compute_cycles, r.memory_bound_cycles) + r.ici_cycles;
  r.utilization = macs / (static_cast<double>(R * C) * static_cast<double>(r.cycles));
  r.arithmetic_intensity = macs / static_cast<double>(r.hbm_read_bytes + r.hbm_write_bytes);
  return r;
}

}  // namespace mxc
