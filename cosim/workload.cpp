#include "cosim/workload.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <random>
#include <stdexcept>

#include "models/mxu/assembler.h"
#include "models/mxu/hazard_check.h"
#include "models/mxu/instr_check.h"
#include "models/mxu/mlp_program.h"
#include "models/mxu/multichip_program.h"

namespace mxc {

namespace {

/// Column blocks [first, first + count) of a column-blocked matrix, as a matrix of its own.
MatrixLayout column_blocks(const MatrixLayout& m, std::uint32_t first, std::uint32_t cols) {
  MatrixLayout sub = m;
  sub.base = m.base + first * m.block_pitch();
  sub.cols = cols;
  return sub;
}

}  // namespace

std::vector<std::uint32_t> read_region(const ResultRegion& region, const SparseMemory& mem) {
  const MatrixLayout& l = region.layout;
  std::vector<std::uint32_t> out(std::size_t{l.rows} * l.cols, 0);
  std::uint8_t b[4] = {};
  for (std::uint32_t i = 0; i < l.rows; ++i)
    for (std::uint32_t j = 0; j < l.cols; ++j) {
      mem.read(l.addr(i, j), std::span<std::uint8_t>(b, l.elem_bytes));
      std::uint32_t v = 0;
      for (std::uint32_t k = 0; k < l.elem_bytes; ++k) v |= std::uint32_t{b[k]} << (8 * k);
      out[std::size_t{i} * l.cols + j] = v;
    }
  return out;
}

std::uint8_t poison_byte(std::uint64_t addr) {
  static constexpr std::uint8_t kPattern[4] = {0xde, 0xad, 0xbe, 0xef};
  return kPattern[addr & 3];
}

void poison(SparseMemory& mem, std::uint64_t addr, std::uint64_t bytes) {
  // A page at a time: a big GEMM's result spans megabytes.
  std::vector<std::uint8_t> chunk;
  for (std::uint64_t at = addr; at < addr + bytes;) {
    const std::uint64_t n = std::min(addr + bytes - at, SparseMemory::kPageBytes - at % SparseMemory::kPageBytes);
    chunk.resize(n);
    for (std::uint64_t i = 0; i < n; ++i) chunk[i] = poison_byte(at + i);
    mem.write(at, chunk);
    at += n;
  }
}

namespace {

/// Disjoint byte ranges [first, end), merged as they are added.
class ByteRanges {
 public:
  void add(std::uint64_t first, std::uint64_t end) {
    if (first >= end) return;
    auto it = m_ranges.upper_bound(first);
    if (it != m_ranges.begin() && std::prev(it)->second >= first) {
      --it;
      first = it->first;
    }
    while (it != m_ranges.end() && it->first <= end) {
      end = std::max(end, it->second);
      it = m_ranges.erase(it);
    }
    m_ranges.emplace(first, end);
  }
  bool intersects(std::uint64_t first, std::uint64_t end) const {
    const auto it = m_ranges.lower_bound(end);  // the first range starting at or past `end`
    return it != m_ranges.begin() && std::prev(it)->second > first;
  }
  /// Calls fn(first, end) for each part of [first, end) no range covers, in address order.
  template <typename Fn>
  void for_each_gap(std::uint64_t first, std::uint64_t end, Fn&& fn) const {
    auto it = m_ranges.upper_bound(first);
    if (it != m_ranges.begin() && std::prev(it)->second > first) first = std::prev(it)->second;
    for (; first < end; ++it) {
      if (it == m_ranges.end() || it->first >= end) {
        fn(first, end);
        return;
      }
      if (it->first > first) fn(first, it->first);
      first = std::max(first, it->second);
    }
  }
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [first, end] : m_ranges) fn(first, end);
  }

 private:
  std::map<std::uint64_t, std::uint64_t> m_ranges;  // first -> end
};

/// Calls fn(first, end) for each row a DMA instruction moves, [first, first + cols).
template <typename Fn>
void for_each_row(const Instr& in, Fn&& fn) {
  for (std::uint32_t r = 0; r < in.rows; ++r) {
    const std::uint64_t at = in.hbm_addr + std::uint64_t{r} * in.hbm_stride;
    fn(at, at + in.cols);
  }
}

}  // namespace

void poison_stores(SparseMemory& mem, const std::vector<Program>& programs, std::uint32_t beat_bytes) {
  // The RTL writes whole beats, strobing off the bytes past a row: those are poisoned too, so a
  // strobe driven high there shows.
  ByteRanges beats;
  for (const Program& p : programs)
    for (const Instr& in : p)
      if (in.op == Opcode::DMA_STORE)
        for_each_row(in, [&](std::uint64_t first, std::uint64_t end) {
          if (first < end) beats.add(first / beat_bytes * beat_bytes, (end + beat_bytes - 1) / beat_bytes * beat_bytes);
        });
  // A load that reads a byte before its program has stored it reads the image's byte (an
  // operand, a --program's random data): it stays. One that reads what its program stored
  // reads the same in both memories, poisoned or not (the MLP's H, stored then read back).
  // Stores of another tile are not counted: the tiles run side by side, in no set order.
  ByteRanges kept;
  for (const Program& p : programs) {
    ByteRanges stored;
    for (const Instr& in : p) {
      if (in.op == Opcode::DMA_STORE) for_each_row(in, [&](std::uint64_t f, std::uint64_t e) { stored.add(f, e); });
      if (in.op != Opcode::DMA_LOAD || in.rows == 0 || in.cols == 0) continue;
      // Most loads (a GEMM's operands) read nowhere a store writes: one look for all their rows.
      const std::uint64_t span_end = in.hbm_addr + std::uint64_t{in.rows - 1u} * in.hbm_stride + in.cols;
      if (!beats.intersects(in.hbm_addr, span_end)) continue;
      for_each_row(in, [&](std::uint64_t first, std::uint64_t end) {
        stored.for_each_gap(first, end, [&](std::uint64_t f, std::uint64_t e) { kept.add(f, e); });
      });
    }
  }
  beats.for_each([&](std::uint64_t first, std::uint64_t end) {
    kept.for_each_gap(first, end, [&](std::uint64_t f, std::uint64_t e) { poison(mem, f, e - f); });
  });
}

namespace {

/// Tile 0 of every chip runs programs[c]; the others idle.
void tile0_only(Workload& w, const SystemConfig& cfg, std::vector<Program> programs) {
  for (auto& p : programs) {
    std::vector<Program> per_tile(cfg.tiles_per_chip);
    per_tile[0] = std::move(p);
    w.programs.push_back(std::move(per_tile));
  }
}

Workload multichip_gemm(const WorkloadSpec& spec, const SystemConfig& cfg, const TileGeometry& geo, std::uint64_t seed) {
  MultiChipGemm g;
  g.shape = spec.shape;
  g.chips = cfg.chips;
  g.split = spec.split == "k" ? ChipSplit::kK : ChipSplit::kN;
  const auto plans = plan_multichip(g, geo);
  Workload w;
  w.description = "gemm " + std::to_string(g.shape.m) + "x" + std::to_string(g.shape.k) + "x" +
                  std::to_string(g.shape.n) + " " + std::string(to_string(g.shape.dtype)) + " split " + spec.split +
                  " over " + std::to_string(cfg.chips) + " chips";
  w.images.resize(cfg.chips);
  std::vector<SparseMemory*> mems;
  for (auto& m : w.images) mems.push_back(&m);
  store_multichip_operands(g, plans, random_gemm_operands(g.shape, seed), mems);
  tile0_only(w, cfg, compile_multichip(g, plans, geo));
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    ResultRegion r{"chip" + std::to_string(c) + ".C", plans[c].layout.c, g.shape.dtype, 0};
    r.first_row = plans[c].m_begin;
    r.end_row = plans[c].m_end;
    w.regions.push_back({r});
  }
  return w;
}

Workload mlp(const WorkloadSpec& spec, const SystemConfig& cfg, const TileGeometry& geo, std::uint64_t seed) {
  MlpShape shape;
  shape.m = spec.shape.m;
  shape.k = spec.shape.k;
  shape.hidden = spec.hidden_features();
  shape.n = spec.shape.n;
  shape.dtype = spec.shape.dtype;
  shape.shift = shape.dtype == DType::kInt8 ? mlp_default_shift(shape.k) : 0;
  validate(shape, geo);
  const MlpLayout layout = place_mlp(shape, geo);
  Workload w;
  w.description = "mlp " + std::to_string(shape.m) + "x" + std::to_string(shape.k) + "x" + std::to_string(shape.hidden) +
                  "x" + std::to_string(shape.n) + " " + std::string(to_string(shape.dtype));
  std::vector<Program> programs;
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    SparseMemory image;
    store_mlp_operands(shape, layout, random_mlp_operands(shape, seed + c), image);
    w.images.push_back(std::move(image));
    programs.push_back(compile_mlp(shape, layout, geo));
    w.regions.push_back({ResultRegion{"chip" + std::to_string(c) + ".C", layout.c, shape.dtype, 0}});
  }
  tile0_only(w, cfg, std::move(programs));
  return w;
}

/// The bytes every DMA_LOAD of `p` reads, filled with random bytes drawn
/// from `seed`, so that a program's arithmetic runs on data (on an empty
/// memory every product is 0 x 0). A region a DMA_STORE writes before a
/// load reads it holds the stored bytes in both the reference and the DUT.
SparseMemory random_load_sources(const Program& p, std::uint64_t seed) {
  SparseMemory image;
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> row;
  for (const Instr& in : p) {
    if (in.op != Opcode::DMA_LOAD) continue;
    row.resize(in.cols);
    for (std::uint32_t r = 0; r < in.rows; ++r) {
      for (std::uint8_t& b : row) b = static_cast<std::uint8_t>(rng());
      image.write(in.hbm_addr + std::uint64_t{r} * in.hbm_stride, row);
    }
  }
  return image;
}

Workload program_files(const WorkloadSpec& spec, const SystemConfig& cfg, const TileGeometry& geo,
                       std::uint64_t seed) {
  const std::vector<std::string>& files = spec.program_files;
  if (files.size() != 1 && files.size() != cfg.chips)
    throw std::invalid_argument(std::to_string(files.size()) + " program files for a " + std::to_string(cfg.chips) +
                                "-chip system: give one (every chip runs it) or one per chip");
  // Per chip its program; a file named twice is read once (a pipe gives its text once).
  std::vector<Program> programs;
  std::vector<ProgramSource> sources;
  std::map<std::string, std::size_t> read;
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    const std::string& path = files[files.size() == 1 ? 0 : c];
    if (const auto it = read.find(path); it != read.end()) {
      programs.push_back(programs[it->second]);
      sources.push_back(sources[it->second]);
      continue;
    }
    ProgramSource source;
    programs.push_back(load_program_file(path, geo, &source));
    sources.push_back(std::move(source));
    read.emplace(path, c);
  }
  Workload w;
  if (files.size() == 1) {
    check_destinations(programs[0], cfg.chips, sources[0]);
    check_hazards(programs[0], sources[0], cfg.chips);
    w.description = "program " + files[0];
  } else {
    for (std::uint32_t c = 0; c < cfg.chips; ++c) check_destinations(programs[c], cfg.chips, sources[c], c);
    check_hazards(programs, sources);
    w.description = "programs";
    for (std::uint32_t c = 0; c < cfg.chips; ++c) w.description += (c ? ", " : " ") + files[c];
    w.description += " (one per chip)";
  }
  w.sources = sources;
  w.check_whole_image = true;
  for (std::uint32_t c = 0; c < cfg.chips; ++c) w.images.push_back(random_load_sources(programs[c], seed + c));
  w.regions.resize(cfg.chips);
  tile0_only(w, cfg, std::move(programs));
  return w;
}

}  // namespace

Workload build_workload(const WorkloadSpec& spec, const SystemConfig& cfg, const TileGeometry& geo,
                        std::uint64_t seed) {
  if (spec.kind == "program") return program_files(spec, cfg, geo, seed);
  if (spec.kind == "mlp") return mlp(spec, cfg, geo, seed);
  if (spec.kind != "gemm")
    throw std::invalid_argument("workload '" + spec.kind + "' is not one of gemm, mlp, program");
  if (spec.split != "none" && spec.split != "k" && spec.split != "n")
    throw std::invalid_argument("split '" + spec.split + "' is not one of none, k, n");
  validate(spec.shape, geo);
  if (spec.split != "none") {
    if (cfg.chips < 2) throw std::invalid_argument("a " + spec.split + "-split GEMM needs at least 2 chips");
    return multichip_gemm(spec, cfg, geo, seed);
  }
  Workload w;
  const GemmShape& s = spec.shape;
  w.description = "gemm " + std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) + " " +
                  std::string(to_string(s.dtype));
  const GemmLayout layout = place_gemm(s, geo);
  const std::uint32_t blocks = layout.c.blocks();
  const std::uint32_t tiles = cfg.tiles_per_chip;
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    SparseMemory image;
    store_operands(s, layout, random_gemm_operands(s, seed + c), image);
    w.images.push_back(std::move(image));
    std::vector<Program> progs;
    std::vector<ResultRegion> regions;
    for (std::uint32_t t = 0; t < tiles; ++t) {
      // Each tile takes blocks / tiles column blocks and the first blocks % tiles one more: with
      // fewer blocks than tiles the first tiles take one each and the last idle, so tile 0
      // (the one whose waveform is dumped, RTL in a mixed system) always has work.
      const std::uint32_t share = blocks / tiles, extra = blocks % tiles;
      const std::uint32_t b0 = t * share + std::min(t, extra), b1 = b0 + share + (t < extra ? 1 : 0);
      if (b0 == b1) {
        progs.emplace_back();  // more tiles than column blocks: this one idles
        continue;
      }
      const std::uint32_t n0 = b0 * geo.cols, n1 = std::min(s.n, b1 * geo.cols);
      GemmShape sub = s;
      sub.n = n1 - n0;
      GemmLayout sl = layout;
      sl.b = column_blocks(layout.b, b0, sub.n);
      sl.c = column_blocks(layout.c, b0, sub.n);
      progs.push_back(compile_gemm(sub, sl, geo));
      const std::string name = "chip" + std::to_string(c) + (tiles > 1 ? ".tile" + std::to_string(t) : "") + ".C";
      regions.push_back(ResultRegion{name, sl.c, s.dtype, t});
    }
    w.programs.push_back(std::move(progs));
    w.regions.push_back(std::move(regions));
  }
  return w;
}

}  // namespace mxc
