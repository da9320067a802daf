#include "models/mxu/functional_tile.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "models/mxu/instr_check.h"
#include "models/mxu/numerics.h"

namespace mxc {

FunctionalTile::FunctionalTile(const TileGeometry& geometry, SparseMemory& hbm, std::uint32_t chip)
    : m_geo(geometry), m_hbm(hbm), m_chip(chip) {
  m_geo.validate();
  m_sp.assign(m_geo.sp_rows, std::vector<std::uint8_t>(m_geo.sp_row_bytes(), 0));
  for (auto& w : m_weights) w.assign(std::size_t{m_geo.rows} * m_geo.cols, 0);
  m_acc.assign(std::size_t{m_geo.acc_rows} * m_geo.cols, 0);
  m_sp_written.assign(m_geo.sp_rows, std::vector<std::uint8_t>(m_geo.sp_row_bytes(), 0));
  m_acc_written.assign(m_acc.size(), 0);
  m_send = [this](const IciRow& r) {
    if (r.dst != m_chip)
      throw std::invalid_argument("ici_send to chip " + std::to_string(r.dst) + " in a single-chip run");
    receive(r);
  };
}

void FunctionalTile::check(const Instr& in) const {
  try {
    check_instruction(in, m_geo);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("instruction '" + describe(in) + "': " + e.what());
  }
}

namespace {

/// The rows of [row, row + n) with a unit (byte, column) of [0, width) never written, as runs
/// of rows whose first and last such units are the same: " rows 2..3 bytes 0..31, rows 4..5
/// bytes 7..31", " row 0 column 1" (a row partly written is not said to be unwritten where it was). At most
/// kRuns runs, then how many more rows. Empty when every unit was written.
/// `written(r, u)`: whether unit u of row r was written.
template <class Written>
std::string unwritten_spans(std::uint32_t row, std::uint32_t n, std::uint32_t width, const char* unit,
                            Written written) {
  constexpr int kRuns = 4;
  std::string out;
  int runs = 0;
  std::uint32_t more = 0;
  struct Run {
    std::uint32_t first, last, lo, hi;
  };
  std::optional<Run> run;
  const auto close = [&] {
    if (!run) return;
    if (runs++ >= kRuns) {
      more += run->last - run->first + 1;
    } else {
      out += std::string(out.empty() ? "" : ",") +
             (run->first == run->last ? " row " + std::to_string(run->first)
                                      : " rows " + std::to_string(run->first) + ".." + std::to_string(run->last)) +
             (run->lo == run->hi ? " " + std::string(unit) + " " + std::to_string(run->lo)
                                 : " " + std::string(unit) + "s " + std::to_string(run->lo) + ".." +
                                       std::to_string(run->hi));
    }
    run.reset();
  };
  for (std::uint32_t r = row; r < row + n; ++r) {
    std::uint32_t lo = 0;
    while (lo < width && written(r, lo)) ++lo;
    if (lo == width) {
      close();
      continue;
    }
    std::uint32_t hi = width - 1;
    while (written(r, hi)) --hi;
    if (run && run->last + 1 == r && run->lo == lo && run->hi == hi) {
      run->last = r;
    } else {
      close();
      run = Run{r, r, lo, hi};
    }
  }
  close();
  if (more) out += " and " + std::to_string(more) + " more row" + (more == 1 ? "" : "s");
  return out;
}

}  // namespace

void FunctionalTile::note_undefined(const Instr& in, const std::string& what, const std::string& spans) {
  if (!spans.empty()) m_undefined.push_back("'" + describe(in) + "' reads " + what + spans + ", never written");
}

std::uint32_t FunctionalTile::written_prefix(std::uint32_t row, std::uint32_t bytes) const {
  const auto& w = m_sp_written[row];
  const std::uint32_t n = std::min<std::uint32_t>(bytes, static_cast<std::uint32_t>(w.size()));
  std::uint32_t i = 0;
  while (i < n && w[i]) ++i;
  return i;
}

void FunctionalTile::read_sp(const Instr& in, std::uint32_t row, std::uint32_t n, std::uint32_t bytes) {
  note_undefined(in, "scratchpad", unwritten_spans(row, n, bytes, "byte", [&](std::uint32_t r, std::uint32_t b) {
                   return b < m_sp_written[r].size() && m_sp_written[r][b];
                 }));
}

void FunctionalTile::read_acc(const Instr& in, std::uint32_t row, std::uint32_t n, std::uint32_t cols) {
  note_undefined(in, "accumulator", unwritten_spans(row, n, cols, "column", [&](std::uint32_t r, std::uint32_t c) {
                   return m_acc_written[std::size_t{r} * m_geo.cols + c] != 0;
                 }));
}

std::uint16_t FunctionalTile::element(const std::vector<std::uint8_t>& row, std::uint32_t i, bool bf16,
                                      std::uint32_t count) const {
  if (i >= count) return 0;
  return bf16 ? static_cast<std::uint16_t>(row[2 * i] | row[2 * i + 1] << 8) : row[i];
}

void FunctionalTile::receive(const IciRow& r) {
  if (r.to_acc) {
    if (r.row >= m_geo.acc_rows) throw std::invalid_argument("inbound ici row " + std::to_string(r.row) + " beyond the accumulators");
    for (std::uint32_t c = 0; c < m_geo.cols && 4 * c < r.bytes; ++c) {
      std::uint32_t v;
      std::memcpy(&v, r.data.data() + 4 * c, 4);
      const std::size_t at = std::size_t{r.row} * m_geo.cols + c;
      std::uint32_t& a = m_acc[at];
      a = r.bf16 ? fp32_add(a, v) : a + v;
      m_acc_written[at] &= static_cast<std::uint8_t>(4 * c + 4 <= r.written);  // an unwritten addend
    }
  } else {
    if (r.row >= m_geo.sp_rows) throw std::invalid_argument("inbound ici row " + std::to_string(r.row) + " beyond the scratchpad");
    const auto n = static_cast<std::uint32_t>(std::min<std::size_t>(r.bytes, m_sp[r.row].size()));
    std::memcpy(m_sp[r.row].data(), r.data.data(), n);
    for (std::uint32_t i = 0; i < n; ++i) m_sp_written[r.row][i] = i < r.written;
  }
  ++m_arrived;
}

bool FunctionalTile::step(const Instr& in) {
  check(in);
  const TileGeometry& g = m_geo;
  const bool bf16 = in.dtype == DType::kBf16;
  switch (in.op) {
    case Opcode::NOP:
    case Opcode::FENCE:
      break;
    case Opcode::DMA_LOAD:
      for (std::uint32_t r = 0; r < in.rows; ++r) {
        m_hbm.read(in.hbm_addr + std::uint64_t{r} * in.hbm_stride, std::span(m_sp[in.sp_row + r].data(), in.cols));
        std::fill_n(m_sp_written[in.sp_row + r].begin(), in.cols, 1);
      }
      break;
    case Opcode::DMA_STORE:
      read_sp(in, in.sp_row, in.rows, in.cols);
      for (std::uint32_t r = 0; r < in.rows; ++r)
        m_hbm.write(in.hbm_addr + std::uint64_t{r} * in.hbm_stride, std::span(m_sp[in.sp_row + r].data(), in.cols));
      break;
    case Opcode::LOAD_WEIGHTS: {
      read_sp(in, in.sp_row, in.rows, std::min<std::uint32_t>(in.cols, g.cols) * (bf16 ? 2u : 1u));
      m_weights_written[in.buf] = true;  // every lane: the rows and columns past the given ones are 0
      auto& w = m_weights[in.buf];
      for (std::uint32_t r = 0; r < g.rows; ++r)
        for (std::uint32_t c = 0; c < g.cols; ++c)
          w[std::size_t{r} * g.cols + c] = r < in.rows ? element(m_sp[in.sp_row + r], c, bf16, in.cols) : 0;
      break;
    }
    case Opcode::MATMUL: {
      read_sp(in, in.sp_row, in.rows, std::min<std::uint32_t>(in.cols, g.rows) * (bf16 ? 2u : 1u));
      if (!m_weights_written[in.buf])
        m_undefined.push_back("'" + describe(in) + "' reads weight buffer " + std::to_string(in.buf) + ", never written");
      if (in.accumulate) read_acc(in, in.acc_row, in.rows, g.cols);
      std::fill_n(m_acc_written.begin() + std::ptrdiff_t{in.acc_row} * g.cols, std::size_t{in.rows} * g.cols, 1);
      const auto& w = m_weights[in.buf];
      std::vector<std::uint16_t> x(g.rows), wc(g.rows);
      for (std::uint32_t i = 0; i < in.rows; ++i) {
        for (std::uint32_t r = 0; r < g.rows; ++r) x[r] = element(m_sp[in.sp_row + i], r, bf16, in.cols);
        for (std::uint32_t c = 0; c < g.cols; ++c) {
          std::uint32_t y = 0;
          if (bf16) {
            for (std::uint32_t r = 0; r < g.rows; ++r) wc[r] = w[std::size_t{r} * g.cols + c];
            y = bf16_dot_column(x, wc);
          } else {
            // int8 lanes: the low byte of each 16-bit lane, signed; int32 wrap.
            for (std::uint32_t r = 0; r < g.rows; ++r)
              y += static_cast<std::uint32_t>(std::int32_t{static_cast<std::int8_t>(x[r] & 0xff)} *
                                              std::int32_t{static_cast<std::int8_t>(w[std::size_t{r} * g.cols + c] & 0xff)});
          }
          std::uint32_t& a = m_acc[std::size_t{in.acc_row + i} * g.cols + c];
          a = !in.accumulate ? y : bf16 ? fp32_add(a, y) : a + y;
        }
      }
      break;
    }
    case Opcode::OUTPUT:
      read_acc(in, in.acc_row, in.rows, in.cols);
      for (std::uint32_t i = 0; i < in.rows; ++i) {
        std::fill_n(m_sp_written[in.sp_row + i].begin(), in.cols * (!in.convert ? 4u : bf16 ? 2u : 1u), 1);
        auto& row = m_sp[in.sp_row + i];
        for (std::uint32_t c = 0; c < in.cols; ++c) {
          std::uint32_t v = m_acc[std::size_t{in.acc_row + i} * g.cols + c];
          if (in.relu) v = bf16 ? relu_fp32(v) : static_cast<std::uint32_t>(relu_int32(static_cast<std::int32_t>(v)));
          if (!in.convert) {
            std::memcpy(row.data() + 4 * c, &v, 4);
          } else if (bf16) {
            const std::uint16_t h = fp32_to_bf16(v);
            std::memcpy(row.data() + 2 * c, &h, 2);
          } else {
            row[c] = static_cast<std::uint8_t>(int32_to_int8(static_cast<std::int32_t>(v), in.shift));
          }
        }
      }
      break;
    case Opcode::ICI_SEND:
      for (std::uint32_t i = 0; i < in.rows; ++i) {
        IciRow r;
        r.src = m_chip;
        r.dst = in.dst_chip;
        r.row = static_cast<std::uint16_t>(in.remote_row + i);
        r.to_acc = in.to_acc;
        r.bf16 = bf16;
        r.bytes = in.cols;
        r.last = i + 1 == in.rows;
        r.data = m_sp[in.sp_row + i];
        r.written = written_prefix(in.sp_row + i, static_cast<std::uint32_t>(r.data.size()));
        m_send(r);
      }
      break;
    case Opcode::ICI_WAIT:
      if (m_arrived < in.rows) return false;
      m_arrived -= in.rows;
      break;
  }
  return true;
}

void FunctionalTile::run(const Program& program) {
  for (std::size_t i = 0; i < program.size(); ++i)
    if (!step(program[i]))
      throw std::invalid_argument("instruction " + std::to_string(i) + " '" + describe(program[i]) +
                                  "' waits for inbound rows that never arrive");
}

}  // namespace mxc
