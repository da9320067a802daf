#include "models/mxu/analytic_model.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace mxc {

namespace {

using u128 = unsigned __int128;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
u128 ceil_div_wide(u128 a, u128 b) { return (a + b - 1) / b; }
u128 round_up(std::uint64_t v, std::uint64_t a) { return u128{ceil_div(v, a)} * a; }

constexpr u128 kMax64 = ~std::uint64_t{0};

[[noreturn]] void fail(const std::string& field, const std::string& why) {
  throw std::invalid_argument("analytic model: " + field + " " + why);
}

/// Cycles to move `bytes` at `gbps` GB/s with a `mhz` clock, rounded up;
/// throws naming `field` (the bandwidth) when they do not fit in 64 bits.
std::uint64_t transfer_cycles(std::uint64_t bytes, double gbps, double mhz, const char* field) {
  if (gbps <= 0 || bytes == 0) return 0;
  const double cycles = std::ceil(static_cast<double>(bytes) * mhz / (gbps * 1000.0) - 1e-9);
  // 2^64: the first double a std::uint64_t cannot hold.
  if (!(cycles < 18446744073709551616.0)) {
    std::ostringstream why;
    why << gbps << " GB/s is too low: " << bytes << " bytes would take more than 2^64 cycles";
    fail(field, why.str());
  }
  return static_cast<std::uint64_t>(cycles);
}

/// Cycles the LOAD_WEIGHTS of one output tile's `kf` folds of `m` rows each
/// wait for their weight buffer, double buffered on an array of C columns.
/// The buffers alternate, so fold j+1's weights overwrite fold j-1's and wait
/// until fold j-1's last vector has left the array, R + C cycles after it
/// entered (the buffer's in-flight count, docs/model.md). With s_j the cycle
/// fold j starts its weight shift, s_{j+1} = max(s_j + R + m, s_{j-1} + 2R +
/// m + C); the tile starts on an empty array (its OUTPUT drained the one
/// before), so s_1 - s_0 = R + m and the gaps then alternate R + max(m, C) and
/// R + m: every second fold from the third on waits C - m when m < C.
u128 weight_buffer_waits(std::uint64_t kf, std::uint64_t m, std::uint64_t C) {
  return m >= C ? 0 : u128{(kf - 1) / 2} * (C - m);
}

/// Wire bytes of one ICI row of `bytes` payload: packets of at most the
/// largest payload, each with its header.
u128 wire_bytes(std::uint64_t bytes, const AnalyticConfig& c) {
  const std::uint64_t packets = bytes == 0 ? 1 : ceil_div(bytes, c.ici_max_payload_bytes);
  return u128{bytes} + u128{packets} * c.ici_header_bytes;
}

/// Wire bytes of one row of the whole M x N result as the collectives move
/// it: a row per N fold of `cols` 32-bit values (the last narrower), each its
/// own packet(s).
u128 result_row_wire_bytes(const AnalyticConfig& c) {
  const std::uint64_t nf = ceil_div(c.n, c.cols), n_last = c.n - (nf - 1) * c.cols;
  return u128{nf - 1} * wire_bytes(4ull * c.cols, c) + wire_bytes(4 * n_last, c);
}

/// Output tiles of one N fold in a K split: chip q owns rows [qM/P,
/// (q+1)M/P), M mod P owners one row more than the others, each blocked by
/// m_block (0: one block an owner).
std::uint64_t owner_blocks(const AnalyticConfig& c) {
  const std::uint64_t P = c.chips, small = c.m / P, n_big = c.m % P;
  const auto blocks = [&](std::uint64_t rows) {
    if (rows == 0) return std::uint64_t{0};
    return c.m_block ? ceil_div(rows, c.m_block) : 1;
  };
  return (P - n_big) * blocks(small) + n_big * blocks(small + 1);
}

/// The compiled collectives' wire bytes in order on the busiest link
/// (docs/workloads.md, "Multi-chip GEMM"). K split: for each output tile
/// the owner sends each other chip in turn a one-row token and waits for
/// that chip's rows, so every other chip's partial of all M rows crosses
/// one after another: (P - 1) M rows, plus the tokens and P - 1 "done"
/// tokens. N split: round s's sender sends its blocks of all M rows to each
/// other chip, along the ring both ways; its busier direction carries
/// floor(P / 2) of the copies. A receiver's token asks for each chunk of
/// m_block rows (M when 0); each round ends with acknowledgements and the
/// next round's start tokens.
u128 collective_wire_bytes(const AnalyticConfig& c) {
  const u128 P = c.chips, rows = u128{c.m} * result_row_wire_bytes(c), token = wire_bytes(4, c);
  const u128 nf = ceil_div(c.n, c.cols);
  if (c.split_k) return (P - 1) * (rows + u128{owner_blocks(c)} * nf * token + token);
  const u128 chunks = nf * ceil_div(c.m, c.m_block ? c.m_block : c.m);
  return P / 2 * rows + (chunks + 2 * P - 1) * token;
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
  need(c.out_bytes == 1 || c.out_bytes == 2 || c.out_bytes == 4, "out_bytes", "must be 1, 2 or 4");
  need(c.clock_mhz > 0, "clock_mhz", "must be > 0");
  need(c.hbm_gbps >= 0, "hbm_gbps", "must be >= 0");
  need(c.chips >= 1, "chips", "must be >= 1");
  need(c.chips == 1 || c.ici_gbps > 0, "ici_gbps", "must be > 0 with more than one chip");
  need(c.ici_max_payload_bytes >= 1, "ici_max_payload_bytes", "must be >= 1");

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
  // The M x K x N problem is too large when a count it implies does not fit
  // in 64 bits (all of them are computed in 128).
  const auto fit = [&](u128 v, const char* what) {
    if (v > kMax64)
      fail("m x k x n", "= " + std::to_string(c.m) + " x " + std::to_string(c.k) + " x " + std::to_string(c.n) +
                            " is too large: its " + what + " do not fit in 64 bits");
    return static_cast<std::uint64_t>(v);
  };
  r.folds = fit(u128{mblocks} * kf * nf, "folds");

  // Folds in program order: M blocks outer, then N, then K; fold f streams
  // m_f rows: mb for every M block but the last, which streams the rest, so
  // the folds stream M rows for each of the K x N folds.
  // Each output tile (an M block by an N fold) ends with OUTPUT, which waits
  // for the array to drain, then reads the tile's m_t rows out.
  const u128 count = u128{kf} * nf;
  const u128 tiles = u128{mblocks} * nf;
  const u128 streamed = count * M;  // sum of m_f over the folds
  const u128 drain = R + C - 2;     // the last vector's way through the array
  // Without double buffering each fold shifts its weights (R), streams
  // (m_f) and drains before the next may shift: SCALE-Sim's count.
  const u128 sum_plain = count * (u128{mblocks} * (R + drain)) + streamed;
  if (c.double_buffer) {
    // Weight buffers alternate, so a fold's weight shift need not wait for
    // the fold before it to drain; it cannot overlap that fold's streaming,
    // which reads the same scratchpad port in the same in-order compute
    // unit: fold f+1 starts R + m_f after fold f, or later when its buffer's
    // previous fold (f-1) is still in the array. Only OUTPUT waits for a
    // drain, once per output tile. Every M block but the last streams mb rows.
    const std::uint64_t m_last = M - (mblocks - 1) * mb;
    const u128 waits = u128{nf} * ((mblocks - 1) * weight_buffer_waits(kf, mb, C) +
                                   weight_buffer_waits(kf, m_last, C));
    r.compute_cycles = fit(u128{r.folds} * R + streamed + tiles * drain + u128{nf} * M + waits, "cycles");
  } else {
    r.compute_cycles = fit(sum_plain + u128{nf} * M, "cycles");  // the drains are in the folds
  }
  r.scalesim_total_cycles = fit(sum_plain - 1, "cycles");

  // HBM traffic as the GEMM compiler moves it: per fold an A block (m_f rows
  // of kb elements) and a B block (kb rows of nb elements), each row rounded
  // up to whole beats; C written once (out_bytes an element: 32-bit unless
  // narrowed) per N fold in rows of nb.
  // Every K fold but the last is R deep, every N fold but the last C wide, so
  // summed over the folds: A M * nf * a_rows, B mblocks * K * b_rows, C M * c_rows,
  // a_rows, b_rows and c_rows being the beat-rounded row bytes summed over one
  // set of K (A) or N (B, C) folds.
  const std::uint64_t k_last = K - (kf - 1) * R, n_last = N - (nf - 1) * C;
  const u128 a_rows = u128{kf - 1} * round_up(R * eb, beat) + round_up(k_last * eb, beat);
  const u128 b_rows = u128{nf - 1} * round_up(C * eb, beat) + round_up(n_last * eb, beat);
  const std::uint64_t ob = c.out_bytes;
  const u128 c_rows = u128{nf - 1} * round_up(C * ob, beat) + round_up(n_last * ob, beat);
  const u128 read = u128{M} * nf * a_rows + u128{mblocks} * K * b_rows;
  const u128 write = u128{M} * c_rows;
  r.hbm_read_bytes = fit(read, "HBM bytes");
  r.hbm_write_bytes = fit(write, "HBM bytes");
  fit(read + write, "HBM bytes");

  const double macs = static_cast<double>(M) * static_cast<double>(K) * static_cast<double>(N);
  r.compute_bound_cycles = fit(ceil_div_wide(u128{M} * K * N, u128{R} * C), "cycles");
  const std::uint64_t bytes = r.hbm_read_bytes + r.hbm_write_bytes;
  r.memory_bound_cycles = transfer_cycles(bytes, c.hbm_gbps, c.clock_mhz, "hbm_gbps");
  if (c.port_bytes_per_cycle) r.memory_bound_cycles = std::max(r.memory_bound_cycles, ceil_div(bytes, c.port_bytes_per_cycle));
  if (c.chips > 1) {
    // The collective as compiled, not a ring reduce-scatter or all-gather's
    // (P - 1) / P of the payload: its steps wait for each other, so their
    // bytes add up, headers included (alpha terms, the hops' latency, ignored).
    r.ici_bytes = fit(collective_wire_bytes(c), "ICI bytes");
    r.ici_cycles = transfer_cycles(r.ici_bytes, c.ici_gbps, c.clock_mhz, "ici_gbps");
  }
  r.roofline_cycles = fit(u128{std::max(r.compute_bound_cycles, r.memory_bound_cycles)} + r.ici_cycles, "cycles");
  r.cycles = fit(u128{std::max(r.compute_cycles, r.memory_bound_cycles)} + r.ici_cycles, "cycles");
  r.utilization = macs / (static_cast<double>(R * C) * static_cast<double>(r.cycles));
  r.arithmetic_intensity = macs / static_cast<double>(r.hbm_read_bytes + r.hbm_write_bytes);
  return r;
}

}  // namespace mxc
