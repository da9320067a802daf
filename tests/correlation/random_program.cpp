#include "tests/correlation/random_program.h"

#include <algorithm>
#include <array>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/mxu/assembler.h"
#include "models/mxu/hazard_check.h"
#include "models/mxu/instr_check.h"
#include "models/mxu/unit_queues.h"

namespace mxc::corr {

namespace {

/// Rows [first, first + count).
struct Range {
  std::uint32_t first = 0, count = 0;
  std::uint32_t end() const { return first + count; }
};

constexpr int kDma = 0, kCompute = 1, kIci = 2;

int unit_index(Opcode op) { return static_cast<int>(unit_of(op)) - 1; }

std::uint8_t* wait_field(Instr& in, int unit) {
  return unit == kDma ? &in.wait_dma : unit == kCompute ? &in.wait_compute : &in.wait_ici;
}

std::uint32_t elem_bytes(DType t) { return t == DType::kBf16 ? 2 : 1; }

class Generator {
 public:
  Generator(std::uint64_t seed, const TileGeometry& geo, const RandomProgramOptions& opt, RandomProgramStats& stats)
      : m_rng(seed), m_geo(geo), m_opt(opt), m_stats(stats), m_row_bytes(geo.sp_row_bytes()),
        m_sp_written(geo.sp_rows, std::vector<std::uint8_t>(m_row_bytes, 0)), m_acc_written(geo.acc_rows, 0),
        m_sp_arrival(geo.sp_rows, 0), m_sp_arrival_wait(geo.sp_rows, 0), m_acc_arrival(geo.acc_rows, 0),
      m_chips(std::max(1u, opt.chips)) {
    for (auto& last : m_sp_last) last.assign(geo.sp_rows, 0);
    if (m_chips > 1) {
      if (geo.sp_rows <= 2 * kTokenRows + 16) throw std::invalid_argument("random_program: scratchpad too small");
      // The last rows are the tokens' (sources, then destinations); the rest is the generator's.
      m_token_src = geo.sp_rows - 2 * kTokenRows;
      m_geo.sp_rows = m_token_src;
      m_sent_to.assign(m_chips, 0);
      m_sp_last_ici.assign(geo.sp_rows, 0);
      m_acc_last_matmul.assign(geo.acc_rows, 0);
      m_acc_last_output.assign(geo.acc_rows, 0);
    }
  }

  Program run() {
    const std::uint32_t n = between(static_cast<std::uint32_t>(m_opt.min_instructions),
                                    static_cast<std::uint32_t>(m_opt.max_instructions));
    if (m_chips > 1)  // about as many rows as instructions, over the chips
      m_budget = m_opt.rows_per_chip ? m_opt.rows_per_chip : between(4, 8 + 2 * n / m_chips);
    for (std::uint32_t i = 0; i < n; ++i) one();
    if (m_chips > 1) {
      // Every chip is sent its budget, the rest as tokens.
      for (std::uint32_t c = 0; c < m_chips; ++c)
        while (m_sent_to[c] < m_budget) emit_token(c, std::min<std::uint64_t>(m_budget - m_sent_to[c], kTokenRows));
    }
    // Every row sent arrives before the end, and a result or two is stored.
    if (pending_rows()) emit_wait(pending_rows());
    if (m_chips > 1) {
      // The sums the chips added into accumulators (int8), read out and stored.
      std::shuffle(m_reduced.begin(), m_reduced.end(), m_rng);
      for (std::size_t k = 0; k < std::min<std::size_t>(m_reduced.size(), 3); ++k) make_output(m_reduced[k]);
      for (int k = 0; k < 2; ++k) make_store(true);
    }
    for (int k = 0; k < 2; ++k) make_store(true);
    return std::move(m_prog);
  }

 private:
  // --- randomness
  std::uint64_t below(std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(m_rng); }
  std::uint32_t between(std::uint32_t lo, std::uint32_t hi) {
    return std::uniform_int_distribution<std::uint32_t>(lo, hi)(m_rng);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(m_rng); }

  void randomize_waits(Instr& in) {
    for (std::uint8_t* f : {&in.wait_dma, &in.wait_compute, &in.wait_ici}) {
      const std::uint64_t r = below(10);
      *f = r < 6 ? isa::kNoWait : static_cast<std::uint8_t>(r < 8 ? below(6) : below(16));
    }
  }

  // --- what the reference will have written
  std::uint32_t prefix(std::uint32_t row) const {
    const auto& w = m_sp_written[row];
    return static_cast<std::uint32_t>(std::find(w.begin(), w.end(), 0) - w.begin());
  }
  void write_sp(std::uint32_t row, std::uint32_t bytes) {
    std::fill_n(m_sp_written[row].begin(), std::min(bytes, m_row_bytes), 1);
  }

  /// Rows [first, first + count) for a destination: mostly low rows, which later
  /// instructions reuse, sometimes the last ones of the scratchpad.
  Range sp_dest(std::uint32_t count) {
    count = std::min(count, m_geo.sp_rows);
    if (chance(0.15)) {
      const auto gap = static_cast<std::uint32_t>(below(std::min(9u, m_geo.sp_rows - count + 1)));
      return {m_geo.sp_rows - count - gap, count};
    }
    const std::uint32_t window = std::max(96u, count);
    return {static_cast<std::uint32_t>(below(std::min(window, m_geo.sp_rows) - count + 1)), count};
  }
  Range acc_dest(std::uint32_t count) {
    count = std::min(count, m_geo.acc_rows);
    if (chance(0.15)) return {m_geo.acc_rows - count, count};
    const std::uint32_t window = std::max(48u, count);
    return {static_cast<std::uint32_t>(below(std::min(window, m_geo.acc_rows) - count + 1)), count};
  }

  /// Up to `max_count` consecutive rows for which `ok(row)` holds, starting at a random such row.
  template <typename Ok>
  std::optional<Range> pick(std::uint32_t limit, std::uint32_t max_count, Ok&& ok) {
    std::vector<std::uint32_t> candidates;
    for (std::uint32_t r = 0; r < limit; ++r)
      if (ok(r)) candidates.push_back(r);
    if (candidates.empty()) return std::nullopt;
    const std::uint32_t first = candidates[below(candidates.size())];
    std::uint32_t extent = 1;
    while (extent < max_count && first + extent < limit && ok(first + extent)) ++extent;
    return Range{first, chance(0.5) ? extent : between(1, extent)};
  }
  /// Rows whose first `bytes` bytes are written.
  std::optional<Range> sp_defined(std::uint32_t bytes, std::uint32_t max_count) {
    return pick(m_geo.sp_rows, max_count, [&](std::uint32_t r) { return prefix(r) >= bytes && sp_usable(r); });
  }
  std::optional<Range> acc_defined(std::uint32_t max_count) {
    return pick(m_geo.acc_rows, max_count, [&](std::uint32_t r) { return m_acc_written[r] != 0 && acc_usable(r); });
  }
  /// Whether an ICI_WAIT can yet count every row arriving there (always on one chip).
  bool sp_usable(std::uint32_t r) const { return m_sp_arrival[r] <= cap(); }
  bool acc_usable(std::uint32_t r) const { return m_acc_arrival[r] <= cap(); }

  // --- HBM addresses
  std::uint32_t pick_stride(std::uint32_t rows, bool allow_zero) {
    if (rows == 1 && chance(0.3)) return static_cast<std::uint32_t>(m_geo.beat_bytes * below(4));
    const std::uint32_t beat = m_geo.beat_bytes;
    switch (below(10)) {
      case 0: return allow_zero ? 0 : beat;
      case 1: case 2: case 3: return beat * between(1, 3);
      case 4: return 4096;
      case 5: return 4096 - beat;
      case 6: return 4096 + beat;
      case 7: return beat * between(1, 256);
      case 8: return 8192 + beat * static_cast<std::uint32_t>(below(4));
      default: return beat * between(1, 8);
    }
  }
  std::uint64_t pick_addr(std::uint32_t rows, std::uint32_t stride) {
    const std::uint64_t beat = m_geo.beat_bytes;
    const std::uint64_t span = std::uint64_t{rows - 1} * stride + beat;
    const std::uint64_t page = 0x100000 + below(32) * 4096;
    switch (below(10)) {
      case 6: case 7: return page + 4096 - beat * (1 + below(3));  // the last beats before a 4 KiB boundary
      case 8: return 0x40000000 + below(256) * beat;
      case 9:
        if (m_opt.high_addresses) {
          const std::uint64_t space = std::uint64_t{1} << isa::HBM_ADDR.width;
          return (space - span - beat * below(64)) / beat * beat;
        }
        [[fallthrough]];
      default: return page + below(4096 / beat) * beat;
    }
  }

  // --- emitting
  void push(const Instr& in) {
    if (m_chips > 1) dispatch(in);
    m_prog.push_back(in);
    const int u = unit_index(in.op);
    if (u >= 0) ++m_count[u];
  }
  /// What is complete when `in` (about to be pushed) dispatches, as find_hazard works it out: per
  /// unit, how many of its first instructions, and the index before which every MATMUL has written
  /// its results back.
  void dispatch(const Instr& in) {
    const std::size_t i = m_prog.size();
    Done g = m_carried;
    for (int x = 0; x < 3; ++x) {
      const std::uint64_t n = m_of_unit[x].size();
      const std::uint8_t w = x == kDma ? in.wait_dma : x == kCompute ? in.wait_compute : in.wait_ici;
      std::uint64_t limit = in.op == Opcode::FENCE ? 0 : w == isa::kNoWait ? n : w;
      limit = std::min(limit, max_outstanding_at_dispatch(unit_of(in.op), static_cast<Unit>(x + 1)));
      g[x] = std::max(g[x], n - std::min(n, limit));
    }
    for (bool grew = true; grew;) {  // a complete instruction was dispatched: what held then holds now
      grew = false;
      for (int x = 0; x < 3; ++x) {
        if (g[x] == 0) continue;
        const Done& then = m_done[m_of_unit[x][g[x] - 1]];
        for (int y = 0; y < 3; ++y)
          if (then[y] > g[y]) g[y] = then[y], grew = true;
      }
    }
    m_done.push_back(g);
    m_carried = g;
    if (g[kCompute] != 0) m_drained = std::max(m_drained, m_output_upto[g[kCompute] - 1]);
    if (in.op == Opcode::FENCE) m_drained = i;
    m_drained_at.push_back(m_drained);
    const int u = unit_index(in.op);
    if (u == kCompute)
      m_output_upto.push_back(in.op == Opcode::OUTPUT ? i : m_output_upto.empty() ? 0 : m_output_upto.back());
    if (u >= 0) m_of_unit[u].push_back(i);
  }
  /// `in` dispatches only once the instruction of unit `unit` with ordinal `ord_plus1 - 1` has completed.
  void after(Instr& in, int unit, std::uint64_t ord_plus1) {
    if (ord_plus1 == 0) return;
    const std::uint64_t later = m_count[unit] - ord_plus1;  // that unit's instructions after it
    if (later >= max_outstanding_at_dispatch(unit_of(in.op), static_cast<Unit>(unit + 1))) return;
    std::uint8_t* f = wait_field(in, unit);
    *f = static_cast<std::uint8_t>(std::min<std::uint64_t>(*f, later));
  }
  /// The most rows the ICI_WAITs so far may count without a deadlock: what every chip is sent.
  std::uint64_t cap() const {
    if (m_chips == 1) return m_rows_sent;
    return m_chips * *std::min_element(m_sent_to.begin(), m_sent_to.end());
  }
  std::uint64_t pending_rows() const { return cap() - m_rows_waited; }
  void emit_wait(std::uint64_t rows) {
    Instr w;
    w.op = Opcode::ICI_WAIT;
    w.rows = static_cast<std::uint16_t>(rows);
    randomize_waits(w);
    push(w);
    m_rows_waited += rows;
    if (m_chips > 1) m_ici.push_back({m_prog.size() - 1, false, 0, 0, m_rows_waited});
    for (std::uint32_t r = 0; r < m_geo.sp_rows; ++r)
      if (m_sp_arrival[r] != 0 && m_sp_arrival[r] <= m_rows_waited && m_sp_arrival_wait[r] == 0)
        m_sp_arrival_wait[r] = m_count[kIci];
  }
  /// Before `in` touches scratchpad rows `sp` (and accumulator rows `acc`): an ICI_WAIT for every
  /// row still arriving there, and for an instruction of another unit a wait for the ICI_WAIT that
  /// counted the rows that arrived there.
  /// False (nothing emitted) when no ICI_WAIT can count them yet (several chips).
  [[nodiscard]] bool settle(Instr& in, Range sp, Range acc = {}) {
    bool pending = false;
    for (std::uint32_t r = sp.first; r < sp.end(); ++r) {
      pending |= m_sp_arrival[r] > m_rows_waited;
      if (!sp_usable(r)) return false;
    }
    for (std::uint32_t r = acc.first; r < acc.end(); ++r) {
      pending |= m_acc_arrival[r] > m_rows_waited;
      if (!acc_usable(r)) return false;
    }
    if (pending) {
      emit_wait(pending_rows());
      ++m_stats.forced_waits;
    }
    if (unit_of(in.op) == Unit::ici) return true;  // the ICI unit runs its instructions in order
    for (std::uint32_t r = sp.first; r < sp.end(); ++r) after(in, kIci, m_sp_arrival_wait[r]);
    return true;
  }
  /// Notes that `in` (just emitted, of a DMA or compute unit) touches scratchpad rows `sp`.
  void touched(const Instr& in, Range sp) {
    const int u = unit_index(in.op);
    for (std::uint32_t r = sp.first; r < sp.end(); ++r) m_sp_last[u][r] = m_count[u];
  }

  // --- instructions
  void one() {
    static constexpr std::array<int, 9> kWeights = {18, 14, 10, 16, 12, 10, 5, 3, 3};
    static constexpr std::array<int, 9> kChipsWeights = {18, 14, 10, 16, 12, 20, 5, 3, 3};  // more sends
    const auto& w = m_chips > 1 ? kChipsWeights : kWeights;
    std::discrete_distribution<int> d(w.begin(), w.end());
    bool made = true;
    switch (d(m_rng)) {
      case 0: make_load(); break;
      case 1: made = make_store(false); break;
      case 2: made = make_load_weights(); break;
      case 3: made = make_matmul(); break;
      case 4: made = make_output(); break;
      case 5: made = m_chips > 1 ? make_chip_send() : make_send(); break;
      case 6: make_wait(); break;
      case 7: make_plain(Opcode::FENCE); break;
      default: make_plain(Opcode::NOP); break;
    }
    if (!made) make_load();  // nothing written yet to read: load something
  }

  void make_load() {
    Instr in;
    in.op = Opcode::DMA_LOAD;
    in.rows = static_cast<std::uint16_t>(chance(0.1) ? between(17, 40) : between(1, 16));
    in.cols = static_cast<std::uint16_t>(chance(0.5) ? m_row_bytes : between(1, m_row_bytes));
    if (!m_stores.empty() && chance(0.3)) {  // read back what a store wrote
      const Instr& s = m_stores[below(m_stores.size())];
      in.hbm_addr = s.hbm_addr;
      in.hbm_stride = s.hbm_stride;
      if (in.hbm_addr + std::uint64_t{in.rows - 1u} * in.hbm_stride + in.cols > (std::uint64_t{1} << 48))
        in.rows = 1;
    } else {
      in.hbm_stride = pick_stride(in.rows, true);
      in.hbm_addr = pick_addr(in.rows, in.hbm_stride);
    }
    const Range sp = sp_dest(in.rows);
    in.sp_row = static_cast<std::uint16_t>(sp.first);
    randomize_waits(in);
    if (!settle(in, sp)) return;
    push(in);
    touched(in, sp);
    for (std::uint32_t r = sp.first; r < sp.end(); ++r) write_sp(r, in.cols);
  }

  bool make_store(bool results_only) {
    std::optional<Range> src;
    // Mostly what OUTPUT or an ICI_SEND wrote, still whole.
    while (!m_results.empty() && (results_only || chance(0.6))) {
      const std::size_t k = below(m_results.size());
      const Range r = m_results[k];
      m_results.erase(m_results.begin() + static_cast<std::ptrdiff_t>(k));
      bool whole = true;
      for (std::uint32_t row = r.first; row < r.end(); ++row) whole &= prefix(row) > 0;
      if (whole) {
        src = r;
        break;
      }
    }
    if (!src && results_only) return false;
    if (!src) src = sp_defined(1, chance(0.2) ? 40 : 16);
    if (!src) return false;
    std::uint32_t bytes = m_row_bytes;
    for (std::uint32_t r = src->first; r < src->end(); ++r) bytes = std::min(bytes, prefix(r));
    Instr in;
    in.op = Opcode::DMA_STORE;
    in.sp_row = static_cast<std::uint16_t>(src->first);
    in.rows = static_cast<std::uint16_t>(src->count);
    in.cols = static_cast<std::uint16_t>(chance(0.6) ? bytes : between(1, bytes));
    in.hbm_stride = pick_stride(in.rows, in.rows == 1);
    in.hbm_addr = pick_addr(in.rows, in.hbm_stride);
    randomize_waits(in);
    if (!settle(in, *src)) return false;
    push(in);
    touched(in, *src);
    m_stores.push_back(in);
    return true;
  }

  DType pick_dtype() { return chance(0.5) ? DType::kBf16 : DType::kInt8; }

  bool make_load_weights() {
    Instr in;
    in.op = Opcode::LOAD_WEIGHTS;
    in.dtype = pick_dtype();
    in.buf = static_cast<std::uint8_t>(below(2));
    in.cols = static_cast<std::uint16_t>(between(1, m_geo.cols));
    const std::optional<Range> src = sp_defined(in.cols * elem_bytes(in.dtype), between(1, m_geo.rows));
    if (!src) return false;
    in.sp_row = static_cast<std::uint16_t>(src->first);
    in.rows = static_cast<std::uint16_t>(src->count);
    randomize_waits(in);
    if (!settle(in, *src)) return false;
    push(in);
    touched(in, *src);
    m_w_written[in.buf] = true;
    m_w_dtype[in.buf] = in.dtype;
    return true;
  }

  bool make_matmul() {
    std::vector<std::uint8_t> bufs;
    for (std::uint8_t b = 0; b < 2; ++b)
      if (m_w_written[b]) bufs.push_back(b);
    if (bufs.empty()) return make_load_weights();
    Instr in;
    in.op = Opcode::MATMUL;
    in.buf = bufs[below(bufs.size())];
    in.dtype = chance(0.9) ? m_w_dtype[in.buf] : pick_dtype();
    in.cols = static_cast<std::uint16_t>(between(1, m_geo.rows));
    const std::optional<Range> src = sp_defined(in.cols * elem_bytes(in.dtype), chance(0.2) ? 40 : 12);
    if (!src) return false;
    in.sp_row = static_cast<std::uint16_t>(src->first);
    in.rows = static_cast<std::uint16_t>(src->count);
    Range acc = acc_dest(in.rows);
    if (chance(0.5)) {  // onto rows already written, adding to them or not
      const std::optional<Range> w = acc_defined(in.rows);
      if (w && w->count == in.rows) acc = *w;
    }
    bool all_written = true;
    for (std::uint32_t r = acc.first; r < acc.end(); ++r) all_written &= m_acc_written[r] != 0;
    in.accumulate = all_written && chance(0.6);
    in.acc_row = static_cast<std::uint16_t>(acc.first);
    randomize_waits(in);
    if (!settle(in, *src, acc)) return false;
    push(in);
    touched(in, *src);
    for (std::uint32_t r = acc.first; r < acc.end(); ++r) {
      m_acc_written[r] = 1;
      if (m_chips > 1) m_acc_last_matmul[r] = m_prog.size();
    }
    m_last_matmul_dtype = in.dtype;
    return true;
  }

  bool make_output(std::optional<Range> acc = std::nullopt) {
    if (acc) {
      for (std::uint32_t r = acc->first; r < acc->end(); ++r)
        if (!m_acc_written[r] || !acc_usable(r)) return false;
    } else {
      acc = acc_defined(chance(0.2) ? 40 : 12);
    }
    if (!acc) return make_matmul();
    Instr in;
    in.op = Opcode::OUTPUT;
    in.dtype = chance(0.8) ? m_last_matmul_dtype : pick_dtype();
    in.cols = static_cast<std::uint16_t>(between(1, m_geo.cols));
    in.convert = chance(0.5);
    in.relu = chance(0.4);
    if (in.convert && in.dtype == DType::kInt8) in.shift = static_cast<std::uint8_t>(chance(0.2) ? 0 : below(32));
    in.acc_row = static_cast<std::uint16_t>(acc->first);
    in.rows = static_cast<std::uint16_t>(acc->count);
    const Range sp = sp_dest(in.rows);
    in.sp_row = static_cast<std::uint16_t>(sp.first);
    randomize_waits(in);
    if (!settle(in, sp, *acc)) return false;
    push(in);
    touched(in, sp);
    if (m_chips > 1)
      for (std::uint32_t r = acc->first; r < acc->end(); ++r) m_acc_last_output[r] = m_count[kCompute];
    const std::uint32_t bytes = in.cols * (in.convert ? elem_bytes(in.dtype) : 4u);
    for (std::uint32_t r = sp.first; r < sp.end(); ++r) write_sp(r, bytes);
    m_results.push_back(sp);
    return true;
  }

  bool make_send() {
    Instr in;
    in.op = Opcode::ICI_SEND;
    in.dst_chip = 0;
    in.to_acc = chance(0.4);
    in.cols = static_cast<std::uint16_t>(chance(0.4) ? m_row_bytes : between(1, m_row_bytes));
    if (in.to_acc) {
      in.dtype = chance(0.8) ? m_last_matmul_dtype : pick_dtype();
      // Each element added: its 4 bytes written at the sender, its accumulator written here.
      const std::uint32_t elems = std::min(m_geo.cols, (in.cols + 3u) / 4u);
      const std::optional<Range> acc = acc_defined(16);
      if (!acc) return false;
      const std::optional<Range> src = sp_defined(4 * elems, acc->count);
      if (!src) return false;
      in.rows = static_cast<std::uint16_t>(src->count);
      in.sp_row = static_cast<std::uint16_t>(src->first);
      in.remote_row = static_cast<std::uint16_t>(acc->first);
      randomize_waits(in);
      if (!settle(in, *src)) return false;
      push(in);
      // find_hazard takes a send's rows as arrived once its last one is counted.
      m_rows_sent += in.rows;
      for (std::uint32_t i = 0; i < in.rows; ++i) m_acc_arrival[in.remote_row + i] = m_rows_sent;
      return true;
    }
    // Rows sent only to move them: written or not (an unwritten byte stays unwritten where it lands).
    Range src;
    if (const std::optional<Range> d = chance(0.8) ? sp_defined(1, 16) : std::nullopt) {
      src = *d;
    } else {
      src = sp_dest(between(1, 16));
    }
    Range dst;
    for (int tries = 0;; ++tries) {
      if (tries == 20) return false;
      dst = sp_dest(src.count);
      if (dst.end() <= src.first || src.end() <= dst.first) break;
    }
    in.rows = static_cast<std::uint16_t>(src.count);
    in.sp_row = static_cast<std::uint16_t>(src.first);
    in.remote_row = static_cast<std::uint16_t>(dst.first);
    randomize_waits(in);
    if (!settle(in, src)) return false;
    // The rows land whenever they arrive: whatever another unit does with them before must be over.
    for (std::uint32_t r = dst.first; r < dst.end(); ++r) {
      after(in, kDma, m_sp_last[kDma][r]);
      after(in, kCompute, m_sp_last[kCompute][r]);
    }
    push(in);
    for (std::uint32_t i = 0; i < in.rows; ++i) {
      const std::uint32_t from = src.first + i, to = dst.first + i;
      const std::uint32_t written = prefix(from);
      for (std::uint32_t b = 0; b < std::min<std::uint32_t>(in.cols, m_row_bytes); ++b)
        m_sp_written[to][b] = b < written;
      m_sp_arrival[to] = ++m_rows_sent;
      m_sp_arrival_wait[to] = 0;
    }
    m_results.push_back(dst);
    return true;
  }

  // --- rows between chips (several chips; every chip runs the program)
  //
  // A send to chip d runs on every chip: d gets a copy of its rows from each, in no order between
  // chips. Only int8 additions into accumulators commute, so those rows stay defined; the rows a
  // plain or bf16 send writes are not (never read until written again). Other chips' copies land
  // whenever they come: chip d's earlier instructions using the rows must be complete by then,
  // and its later ones wait for an ICI_WAIT that counts them. find_hazard takes a send's rows as
  // arrived once an ICI_WAIT counts every row the other chips send d in the whole program, and
  // d's own up to them, which (a chip's rows arriving in order) covers every chip's copy too: with
  // each chip sent m_budget rows in all, a row is usable once the ICI_WAITs count
  // (chips - 1) * m_budget + its number among d's own.

  /// Sends `rows` rows from the token rows to chip `c`'s token rows, which nothing else uses.
  void emit_token(std::uint32_t c, std::uint64_t rows) {
    Instr in;
    in.op = Opcode::ICI_SEND;
    in.dst_chip = static_cast<std::uint8_t>(c);
    in.rows = static_cast<std::uint16_t>(rows);
    in.cols = static_cast<std::uint16_t>(chance(0.5) ? m_row_bytes : between(1, m_row_bytes));
    in.sp_row = static_cast<std::uint16_t>(m_token_src);
    in.remote_row = static_cast<std::uint16_t>(m_token_src + kTokenRows);
    randomize_waits(in);
    push_send(in);
    ++m_stats.token_sends;
  }
  void push_send(const Instr& in) {
    push(in);
    m_ici.push_back({m_prog.size() - 1, true, in.dst_chip, in.rows, 0});
    m_sent_to[in.dst_chip] += in.rows;
  }

  /// A FENCE, then every chip sends each as many token rows as leaves them all sent the same, one
  /// more than the most any is, then an ICI_WAIT for all: no chip passes it before every chip has
  /// sent its tokens, after its FENCE.
  bool make_barrier() {
    const std::uint64_t most = *std::max_element(m_sent_to.begin(), m_sent_to.end()) + 1;
    if (most > m_budget) return false;
    make_plain(Opcode::FENCE);
    std::vector<std::uint32_t> order(m_chips);
    for (std::uint32_t c = 0; c < m_chips; ++c) order[c] = c;
    std::shuffle(order.begin(), order.end(), m_rng);
    for (const std::uint32_t c : order)
      while (m_sent_to[c] < most) emit_token(c, std::min<std::uint64_t>(most - m_sent_to[c], kTokenRows));
    emit_wait(pending_rows());
    ++m_stats.barriers;
    return true;
  }

  /// Whether some chip other than d can reach the ICI unit's instruction `q` (ordinal) while chip d
  /// has run only its first `e`: each other chip goes as far as the rows it can have been sent
  /// let its ICI_WAITs pass, until none goes further.
  bool others_reach(std::uint32_t d, std::size_t e, std::size_t q) const {
    std::vector<std::size_t> pos(m_chips, 0);
    pos[d] = e;
    // sent[c][j]: rows the ICI unit's first j instructions send chip c.
    std::vector<std::vector<std::uint64_t>> sent(m_chips, std::vector<std::uint64_t>(m_ici.size() + 1, 0));
    for (std::uint32_t c = 0; c < m_chips; ++c)
      for (std::size_t j = 0; j < m_ici.size(); ++j)
        sent[c][j + 1] = sent[c][j] + (m_ici[j].send && m_ici[j].dst == c ? m_ici[j].rows : 0);
    for (bool moved = true; moved;) {
      moved = false;
      for (std::uint32_t c = 0; c < m_chips; ++c) {
        if (c == d) continue;
        while (pos[c] < q) {
          const IciOp& op = m_ici[pos[c]];
          if (!op.send) {
            std::uint64_t arrived = 0;
            for (std::uint32_t x = 0; x < m_chips; ++x) arrived += sent[c][pos[x]];
            if (op.waited > arrived) break;
          }
          ++pos[c];
          moved = true;
        }
      }
    }
    for (std::uint32_t c = 0; c < m_chips; ++c)
      if (c != d && pos[c] >= q) return true;
    return false;
  }
  /// The instruction of chip d's ICI unit that must have started before another chip's copy of
  /// the next send can come (its program index), none when one can come at any time.
  std::optional<std::size_t> enabler(std::uint32_t d) const {
    const std::size_t q = m_ici.size();
    std::size_t e = 0;
    while (e < q && !others_reach(d, e, q)) ++e;
    if (e == 0) return std::nullopt;
    return m_ici[e - 1].index;
  }
  /// Whether the instruction of unit `unit` with ordinal `ord_plus1 - 1` (none: 0) is complete when
  /// `at` (an ICI instruction, the `e`-th) dispatches or starts.
  bool complete_at(std::optional<std::size_t> at, int unit, std::uint64_t ord_plus1) const {
    if (ord_plus1 == 0) return true;
    if (!at) return false;
    return m_done[*at][unit] >= ord_plus1;
  }
  /// Whether other chips' copies of a send to scratchpad rows `sp` or accumulator rows `acc`,
  /// landing once `at` started, find every earlier use of the rows there over.
  bool lands_clear(std::optional<std::size_t> at, std::optional<std::size_t> at_ici, Range sp, Range acc) const {
    for (std::uint32_t r = sp.first; r < sp.end(); ++r) {
      if (!complete_at(at, kDma, m_sp_last[kDma][r]) || !complete_at(at, kCompute, m_sp_last[kCompute][r]))
        return false;
      // The ICI unit's instructions before the one started are complete.
      const std::uint64_t ici = m_sp_last_ici[r];
      if (ici != 0 && !(at_ici && ici <= *at_ici) && !complete_at(at, kIci, ici)) return false;
    }
    for (std::uint32_t r = acc.first; r < acc.end(); ++r) {
      if (m_acc_last_matmul[r] != 0 && (!at || m_acc_last_matmul[r] > m_drained_at[*at])) return false;
      if (!complete_at(at, kCompute, m_acc_last_output[r])) return false;
    }
    return true;
  }
  /// The ICI ordinal of program index `at` (an ICI instruction).
  std::optional<std::size_t> ici_ordinal(std::optional<std::size_t> at) const {
    if (!at) return std::nullopt;
    for (std::size_t j = 0; j < m_ici.size(); ++j)
      if (m_ici[j].index == *at) return j;
    return std::nullopt;
  }

  bool make_chip_send() {
    if (chance(0.3)) make_barrier();
    const auto d = static_cast<std::uint32_t>(below(m_chips));
    const std::uint64_t room = m_budget - m_sent_to[d];
    if (room == 0) return false;
    const std::uint32_t max_rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(room, 16));
    Instr in;
    in.op = Opcode::ICI_SEND;
    in.dst_chip = static_cast<std::uint8_t>(d);
    in.to_acc = chance(0.5);
    in.cols = static_cast<std::uint16_t>(chance(0.4) ? m_row_bytes : between(1, m_row_bytes));
    // Destinations where other chips' copies may land from the earliest they can come.
    const std::optional<std::size_t> early = enabler(d);
    const std::optional<std::size_t> early_ici = ici_ordinal(early);
    Range src, dst;
    if (in.to_acc) {
      in.dtype = chance(0.75) ? DType::kInt8 : DType::kBf16;
      const std::uint32_t elems = std::min(m_geo.cols, (in.cols + 3u) / 4u);
      const std::optional<Range> acc = pick(m_geo.acc_rows, max_rows, [&](std::uint32_t r) {
        return m_acc_written[r] != 0 && acc_usable(r) && lands_clear(early, early_ici, {}, {r, 1});
      });
      if (!acc) {
        ++m_stats.sends_refused;
        return false;
      }
      const std::optional<Range> s = sp_defined(4 * elems, acc->count);
      if (!s) return false;
      src = *s;
      dst = {acc->first, src.count};
    } else {
      if (const std::optional<Range> w = chance(0.8) ? sp_defined(1, max_rows) : std::nullopt) {
        src = *w;
      } else {
        src = sp_dest(between(1, max_rows));
      }
      for (int tries = 0;; ++tries) {
        if (tries == 20) {
          ++m_stats.sends_refused;
          return false;
        }
        dst = sp_dest(src.count);
        if ((dst.end() <= src.first || src.end() <= dst.first) && lands_clear(early, early_ici, dst, {})) break;
      }
    }
    in.rows = static_cast<std::uint16_t>(src.count);
    in.sp_row = static_cast<std::uint16_t>(src.first);
    in.remote_row = static_cast<std::uint16_t>(dst.first);
    randomize_waits(in);
    if (!settle(in, src)) return false;
    // A wait settle added only makes other chips come later; checked again all the same.
    const std::optional<std::size_t> at = enabler(d);
    if (!lands_clear(at, ici_ordinal(at), in.to_acc ? Range{} : dst, in.to_acc ? dst : Range{}))
      throw std::logic_error("random_program: a send's destination stopped being clear");
    if (!in.to_acc)  // chip d's own copy lands from when the send runs (find_hazard checks it as such)
      for (std::uint32_t r = dst.first; r < dst.end(); ++r) {
        after(in, kDma, m_sp_last[kDma][r]);
        after(in, kCompute, m_sp_last[kCompute][r]);
      }
    const std::uint64_t own = m_sent_to[d];
    push_send(in);
    ++m_stats.chip_sends;
    for (std::uint32_t r = src.first; r < src.end(); ++r) m_sp_last_ici[r] = m_count[kIci];
    const std::uint64_t others = std::uint64_t{m_chips - 1} * m_budget;
    for (std::uint32_t i = 0; i < in.rows; ++i) {
      const std::uint32_t r = dst.first + i;
      if (in.to_acc) {
        m_acc_arrival[r] = std::max(m_acc_arrival[r], others + own + i + 1);
        if (in.dtype != DType::kInt8) m_acc_written[r] = 0;
      } else {
        m_sp_arrival[r] = std::max(m_sp_arrival[r], others + own + i + 1);
        m_sp_arrival_wait[r] = 0;
        for (std::uint32_t b = 0; b < std::min<std::uint32_t>(in.cols, m_row_bytes); ++b) m_sp_written[r][b] = 0;
      }
    }
    if (in.to_acc && in.dtype == DType::kInt8) m_reduced.push_back(dst);
    return true;
  }

  void make_wait() {
    const std::uint64_t p = pending_rows();
    if (p == 0) {
      if (chance(0.3)) emit_wait(0);
      return;
    }
    emit_wait(chance(0.6) ? p : between(1, static_cast<std::uint32_t>(p)));
  }

  void make_plain(Opcode op) {
    Instr in;
    in.op = op;
    randomize_waits(in);
    push(in);
  }

  std::mt19937_64 m_rng;
  TileGeometry m_geo;
  RandomProgramOptions m_opt;
  RandomProgramStats& m_stats;
  std::uint32_t m_row_bytes;
  Program m_prog;
  std::array<std::uint64_t, 3> m_count{};  // instructions emitted per unit
  std::vector<std::vector<std::uint8_t>> m_sp_written;  // per scratchpad byte, as the reference keeps it
  std::vector<std::uint8_t> m_acc_written;              // per accumulator row (MATMUL writes every column)
  bool m_w_written[2] = {false, false};
  DType m_w_dtype[2] = {DType::kInt8, DType::kInt8};
  DType m_last_matmul_dtype = DType::kInt8;
  // Per scratchpad row, the last DMA and compute instruction touching it (ordinal + 1; 0: none).
  std::array<std::vector<std::uint64_t>, 2> m_sp_last;
  // Rows this chip sends itself: each numbered in the order sent (from 1). Per scratchpad row, the
  // latest to land there and the ICI_WAIT counting it (ICI ordinal + 1; 0: none yet); per
  // accumulator row, the last row of the latest send adding there.
  std::uint64_t m_rows_sent = 0, m_rows_waited = 0;
  std::vector<std::uint64_t> m_sp_arrival, m_sp_arrival_wait, m_acc_arrival;
  std::vector<Range> m_results;  // rows OUTPUT or an ICI_SEND wrote, not yet stored
  // Several chips: each chip is sent m_budget rows in all; the token rows; the ICI unit's
  // instructions; per scratchpad row the last ICI_SEND reading it (ICI ordinal + 1), per
  // accumulator row the last MATMUL writing it (index + 1) and OUTPUT reading it (compute ordinal
  // + 1); per instruction what is complete at its dispatch (find_hazard's rules).
  static constexpr std::uint32_t kTokenRows = 4;
  struct IciOp {
    std::size_t index = 0;
    bool send = false;
    std::uint32_t dst = 0;
    std::uint64_t rows = 0;    ///< A send's.
    std::uint64_t waited = 0;  ///< An ICI_WAIT's: the rows it and the ones before count.
  };
  using Done = std::array<std::uint64_t, 3>;
  std::uint32_t m_chips = 1;
  std::uint64_t m_budget = 0;
  std::uint32_t m_token_src = 0;
  std::vector<std::uint64_t> m_sent_to;
  std::vector<IciOp> m_ici;
  std::vector<std::uint64_t> m_sp_last_ici, m_acc_last_matmul, m_acc_last_output;
  std::vector<Done> m_done;
  std::vector<std::size_t> m_drained_at, m_output_upto;
  std::array<std::vector<std::size_t>, 3> m_of_unit;
  Done m_carried{};
  std::size_t m_drained = 0;
  std::vector<Range> m_reduced;  // accumulator rows int8 sends added into
  std::vector<Instr> m_stores;   // DMA_STOREs so far, to load back from
};

}  // namespace

void repair_hazards(Program& program, RandomProgramStats* stats, std::uint32_t chips) {
  RandomProgramStats ignored;
  RandomProgramStats& st = stats ? *stats : ignored;
  for (std::size_t steps = 0;; ++steps) {
    const std::optional<Hazard> h = find_hazard(program, RunOn{chips, std::nullopt});
    if (!h) return;
    if (steps > 8 * program.size() + 64) throw std::logic_error("repair_hazards: the hazards do not end");
    Instr& later = program[h->later];
    const std::string& fix = h->fix;
    const std::size_t eq = fix.find('=');
    if (fix.starts_with("wait_") && eq != std::string::npos && fix.find(' ') == std::string::npos) {
      const std::string field = fix.substr(0, eq);
      const unsigned long n = std::stoul(fix.substr(eq + 1));
      std::uint8_t* f = field == "wait_dma"       ? &later.wait_dma
                        : field == "wait_compute" ? &later.wait_compute
                        : field == "wait_ici"     ? &later.wait_ici
                                                  : nullptr;
      if (!f || n >= *f)
        throw std::logic_error("repair_hazards: fix '" + fix + "' changes nothing on '" + describe(later) + "'");
      *f = static_cast<std::uint8_t>(n);
      ++st.wait_repairs;
    } else if (fix == "a fence before it") {
      Instr fence;
      fence.op = Opcode::FENCE;
      program.insert(program.begin() + static_cast<std::ptrdiff_t>(h->later), fence);
      ++st.fence_repairs;
    } else {
      throw std::logic_error("repair_hazards: cannot apply '" + fix + "' to instruction " + std::to_string(h->later) +
                             " '" + describe(later) + "' (against instruction " + std::to_string(h->earlier) + ")");
    }
  }
}

Program random_program(std::uint64_t seed, const TileGeometry& geo, const RandomProgramOptions& options,
                       RandomProgramStats* stats) {
  RandomProgramStats ignored;
  RandomProgramStats& st = stats ? *stats : ignored;
  Program p = Generator(seed, geo, options, st).run();
  const Program generated = p;
  try {
    repair_hazards(p, &st, std::max(1u, options.chips));
  } catch (const std::logic_error& e) {
    throw std::logic_error(std::string(e.what()) + " in the program generated from seed " + std::to_string(seed) +
                           ":\n" + format_program(generated));
  }
  // What `mxcosim run --program` checks before it runs a file, on one chip.
  ProgramSource source;
  source.path = "random seed " + std::to_string(seed);
  for (std::size_t i = 0; i < p.size(); ++i) source.lines.push_back(static_cast<std::uint32_t>(i + 1));
  check_program(p, geo, source);
  const std::uint32_t chips = std::max(1u, options.chips);
  check_destinations(p, chips, source);
  check_waits_alone(p, source);
  check_hazards(p, source, chips);
  return p;
}

}  // namespace mxc::corr

namespace mxc::corr {

namespace {

/// Moves a one-chip program's scratchpad rows up by `sp` and its accumulator rows by `acc`, and
/// makes its sends (each to itself) chip `chip`'s.
void move_rows(Program& p, std::uint32_t sp, std::uint32_t acc, std::uint32_t chip) {
  for (Instr& in : p) {
    switch (in.op) {
      case Opcode::DMA_LOAD:
      case Opcode::DMA_STORE:
      case Opcode::LOAD_WEIGHTS: in.sp_row = static_cast<std::uint16_t>(in.sp_row + sp); break;
      case Opcode::MATMUL:
      case Opcode::OUTPUT:
        in.sp_row = static_cast<std::uint16_t>(in.sp_row + sp);
        in.acc_row = static_cast<std::uint16_t>(in.acc_row + acc);
        break;
      case Opcode::ICI_SEND:
        in.sp_row = static_cast<std::uint16_t>(in.sp_row + sp);
        in.remote_row = static_cast<std::uint16_t>(in.remote_row + (in.to_acc ? acc : sp));
        in.dst_chip = static_cast<std::uint8_t>(chip);
        break;
      default: break;
    }
  }
}

}  // namespace

std::vector<Program> random_chip_programs(std::uint64_t seed, const TileGeometry& geo,
                                          const RandomProgramOptions& options, RandomProgramStats* stats) {
  const std::uint32_t chips = options.chips;
  if (chips < 2 || chips > 4) throw std::invalid_argument("random_chip_programs: needs 2 to 4 chips");
  // The parts of the scratchpad and accumulators each part uses: the shared program its lowest
  // rows and its last ones (at most 40 + 8 below its top, and the tokens'), each chip's own
  // program scratchpad rows [512, 768) and accumulator rows [96, 192); the exchange scratchpad
  // rows from 800 (what it sends, then its barrier's landing row, a slot of 8 rows per sending
  // chip, and where the sums are read out to) and accumulator rows [192, 216) (8 rows every chip
  // adds int8 rows into, then 4 rows per sending chip adding bf16 rows).
  constexpr std::uint32_t kOwnSp = 512, kOwnSpRows = 256, kOwnAcc = 96, kOwnAccRows = 96;
  constexpr std::uint32_t kSent = 800, kSentRows = 16, kBarrier = 830, kSlots = 840, kSlotRows = 8;
  constexpr std::uint32_t kReadOut = 880, kInt8Acc = 192, kInt8Rows = 8, kBf16Acc = 200, kBf16Rows = 4;
  if (geo.sp_rows < 1024 || geo.acc_rows < 256 || geo.sp_row_bytes() < 4 * geo.cols)
    throw std::invalid_argument("random_chip_programs: needs 1024 scratchpad and 256 accumulator rows");
  RandomProgramStats ignored;
  RandomProgramStats& st = stats ? *stats : ignored;
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + 11);
  const auto between = [&](std::uint32_t lo, std::uint32_t hi) {
    return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng);
  };
  const std::uint32_t row_bytes = geo.sp_row_bytes();
  // The exchange: each chip's sends to the others, drawn first (a chip waits for what the others
  // send it). A chip's plain rows land in its slot of the receiver, each pair's with its own
  // width, where a later send overwrites an earlier one (rows between a pair arrive in order);
  // its int8 rows add into the rows every chip adds into (sums in any order); its bf16 rows into
  // its own rows of the receiver's accumulators (one chip's, in order).
  std::vector<std::vector<Instr>> sends(chips);
  std::vector<std::vector<std::uint32_t>> pair_cols(chips, std::vector<std::uint32_t>(chips));
  std::vector<std::uint64_t> received(chips, 0);
  // Per receiver and sending chip, the slot rows written.
  std::vector<std::vector<std::vector<bool>>> landed(
      chips, std::vector<std::vector<bool>>(chips, std::vector<bool>(kSlotRows)));
  for (std::uint32_t c = 0; c < chips; ++c) {
    for (std::uint32_t d = 0; d < chips; ++d) pair_cols[c][d] = between(0, 1) ? row_bytes : between(1, row_bytes);
    for (std::uint32_t n = between(1, 4); n-- > 0;) {
      Instr in;
      in.op = Opcode::ICI_SEND;
      const std::uint32_t d = (c + between(1, chips - 1)) % chips;
      in.dst_chip = static_cast<std::uint8_t>(d);
      const std::uint32_t kind = between(0, 9);
      const std::uint32_t room = kind < 6 ? kSlotRows : kind < 9 ? kInt8Rows : kBf16Rows;
      const std::uint32_t at = between(0, room - 1), rows = between(1, room - at);
      in.rows = static_cast<std::uint16_t>(rows);
      in.sp_row = static_cast<std::uint16_t>(kSent + between(0, kSentRows - rows));
      if (kind < 6) {
        in.cols = static_cast<std::uint16_t>(pair_cols[c][d]);
        in.remote_row = static_cast<std::uint16_t>(kSlots + kSlotRows * c + at);
        for (std::uint32_t r = at; r < at + rows; ++r) landed[d][c][r] = true;
      } else {
        in.to_acc = true;
        in.dtype = kind < 9 ? DType::kInt8 : DType::kBf16;
        in.cols = static_cast<std::uint16_t>(between(1, 4 * geo.cols));
        in.remote_row = static_cast<std::uint16_t>((kind < 9 ? kInt8Acc : kBf16Acc + kBf16Rows * c) + at);
      }
      received[d] += rows;
      sends[c].push_back(in);
      ++st.chip_sends;
    }
  }
  TileGeometry own_geo = geo;
  own_geo.sp_rows = kOwnSpRows;
  own_geo.acc_rows = kOwnAccRows;
  RandomProgramOptions own_options = options;
  own_options.chips = 1;
  own_options.min_instructions = 8;
  own_options.max_instructions = std::max<std::size_t>(8, options.max_instructions / 2);
  const auto instr = [](Opcode op) {
    Instr in;
    in.op = op;
    return in;
  };
  // The shared program drawn from the seed, or drawn again (from seeds after it) while the
  // per-chip check refuses the set: on more than 2 chips, rows it sends land from 3 or more chips,
  // and the check, which does not know they are copies of one send, holds their data
  // order-dependent until every row of the others has arrived, which the shared program, made for
  // every chip running it, need not wait for before it writes them again.
  const std::mt19937_64 rng_at = rng;
  for (std::uint32_t attempt = 0;; ++attempt) {
    rng = rng_at;
    RandomProgramStats drawn;
    const Program shared = random_program(seed + 0x100000000ull * attempt, geo, options, &drawn);
    std::vector<Program> programs;
    for (std::uint32_t c = 0; c < chips; ++c) {
      Program p;
      // The rows it sends, and its accumulator rows the others add into written first.
      Instr load = instr(Opcode::DMA_LOAD);
      load.rows = kSentRows;
      load.cols = static_cast<std::uint16_t>(row_bytes);
      load.sp_row = kSent;
      load.hbm_stride = row_bytes;
      load.hbm_addr = 0x600000 + std::uint64_t{between(0, 63)} * geo.beat_bytes;
      p.push_back(load);
      for (const DType t : {DType::kInt8, DType::kBf16}) {
        const bool int8 = t == DType::kInt8;
        Instr w = instr(Opcode::LOAD_WEIGHTS);
        w.rows = static_cast<std::uint16_t>(geo.rows);
        w.cols = static_cast<std::uint16_t>(geo.cols);
        w.sp_row = kSent;
        w.dtype = t;
        w.buf = int8 ? 0 : 1;
        w.wait_dma = 0;
        p.push_back(w);
        Instr mm = instr(Opcode::MATMUL);
        mm.rows = static_cast<std::uint16_t>(int8 ? kInt8Rows : kBf16Rows * 4);
        mm.cols = static_cast<std::uint16_t>(geo.rows);
        mm.sp_row = kSent;
        mm.acc_row = static_cast<std::uint16_t>(int8 ? kInt8Acc : kBf16Acc);
        mm.dtype = t;
        mm.buf = w.buf;
        p.push_back(mm);
      }
      // A barrier: once a chip has the others' rows, each has written its accumulator rows (its
      // FENCE waits for their results) before any adds into them.
      p.push_back(instr(Opcode::FENCE));
      for (std::uint32_t d = 0; d < chips; ++d) {
        if (d == c) continue;
        Instr token = instr(Opcode::ICI_SEND);
        token.rows = 1;
        token.cols = static_cast<std::uint16_t>(row_bytes);
        token.sp_row = kSent;
        token.dst_chip = static_cast<std::uint8_t>(d);
        token.remote_row = kBarrier;
        p.push_back(token);
      }
      Instr barrier = instr(Opcode::ICI_WAIT);
      barrier.rows = static_cast<std::uint16_t>(chips - 1);
      p.push_back(barrier);
      p.insert(p.end(), sends[c].begin(), sends[c].end());
      // Every row of the exchange counted: the shared program's waits count the same rows of its own.
      Instr all = instr(Opcode::ICI_WAIT);
      all.rows = static_cast<std::uint16_t>(received[c]);
      p.push_back(all);
      p.insert(p.end(), shared.begin(), shared.end());
      p.push_back(instr(Opcode::FENCE));
      // What it was sent, stored: each sending chip's rows, the int8 sums, the bf16 ones.
      for (std::uint32_t s = 0; s < chips; ++s) {
        for (std::uint32_t r = 0; r < kSlotRows;) {
          if (!landed[c][s][r]) {
            ++r;
            continue;
          }
          std::uint32_t end = r;
          while (end < kSlotRows && landed[c][s][end]) ++end;
          Instr store = instr(Opcode::DMA_STORE);
          store.rows = static_cast<std::uint16_t>(end - r);
          store.cols = static_cast<std::uint16_t>(pair_cols[s][c]);
          store.sp_row = static_cast<std::uint16_t>(kSlots + kSlotRows * s + r);
          store.hbm_stride = 2 * row_bytes;
          store.hbm_addr = 0x700000 + 0x1000 * s + std::uint64_t{2 * row_bytes} * r;
          p.push_back(store);
          r = end;
        }
      }
      for (const DType t : {DType::kInt8, DType::kBf16}) {
        const bool int8 = t == DType::kInt8;
        Instr out = instr(Opcode::OUTPUT);
        out.rows = static_cast<std::uint16_t>(int8 ? kInt8Rows : kBf16Rows * 4);
        out.cols = static_cast<std::uint16_t>(geo.cols);
        out.acc_row = static_cast<std::uint16_t>(int8 ? kInt8Acc : kBf16Acc);
        out.sp_row = static_cast<std::uint16_t>(int8 ? kReadOut : kReadOut + kInt8Rows);
        out.dtype = t;
        p.push_back(out);
        Instr store = instr(Opcode::DMA_STORE);
        store.rows = out.rows;
        store.cols = static_cast<std::uint16_t>(4 * geo.cols);
        store.sp_row = out.sp_row;
        store.hbm_stride = row_bytes;
        store.hbm_addr = int8 ? 0x710000 : 0x720000;
        store.wait_compute = 0;
        p.push_back(store);
      }
      Program own = random_program(seed * 0xbf58476d1ce4e5b9ull + c + 1, own_geo, own_options);
      move_rows(own, kOwnSp, kOwnAcc, c);
      p.insert(p.end(), own.begin(), own.end());
      programs.push_back(std::move(p));
    }
    // What `mxcosim run` checks of a set of files before it runs them.
    std::vector<ProgramSource> sources(chips);
    for (std::uint32_t c = 0; c < chips; ++c) {
      sources[c].path = "random seed " + std::to_string(seed) + " chip " + std::to_string(c);
      for (std::size_t i = 0; i < programs[c].size(); ++i)
        sources[c].lines.push_back(static_cast<std::uint32_t>(i + 1));
      check_program(programs[c], geo, sources[c]);
      check_destinations(programs[c], chips, sources[c], c);
    }
    try {
      check_hazards(programs, sources);
    } catch (const std::invalid_argument& e) {
      if (attempt < 99) continue;
      throw std::logic_error("random_chip_programs: no shared program of 100 passes the per-chip check: " +
                             std::string(e.what()));
    }
    st.forced_waits += drawn.forced_waits;
    st.wait_repairs += drawn.wait_repairs;
    st.fence_repairs += drawn.fence_repairs;
    st.chip_sends += drawn.chip_sends;
    st.token_sends += drawn.token_sends;
    st.barriers += drawn.barriers;
    st.sends_refused += drawn.sends_refused;
    st.shared_redrawn += attempt;
    return programs;
  }
}

}  // namespace mxc::corr
