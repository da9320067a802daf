#include "bridge/rtl_tile.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

#include "bridge/axi4_protocol_error.h"
#include "bridge/verilated_tile.h"
#include "rtl_sizes.h"

namespace mxc {

void InstrMonitor::fail(const InstrEventFault& f, std::uint64_t cycle, Time now) const {
  const std::string id = "cycle " + std::to_string(cycle);
  throw RtlPinError(f.text(m_tile, cycle), {now, "monitor " + m_tile + "." + f.pin, id, f.field, f.expected, f.actual},
                    "an instruction event no instruction of the program explains");
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> rtl_tile_sizes() {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sizes;
#define MXCOSIM_SIZE_ENTRY(r, c, cls) sizes.emplace_back(r, c);
  MXCOSIM_FOR_EACH_RTL_SIZE(MXCOSIM_SIZE_ENTRY)
#undef MXCOSIM_SIZE_ENTRY
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

namespace {

[[noreturn]] void no_such_size(std::uint32_t rows, std::uint32_t cols) {
  std::ostringstream msg;
  msg << "no RTL of a " << rows << "x" << cols << " array in this build; available:";
  for (auto [r, c] : rtl_tile_sizes()) msg << " " << r << "x" << c;
  msg << " (configure with -DMXCOSIM_RTL_SIZES=\"" << rows << "x" << cols << ";...\" to add it)";
  throw std::invalid_argument(msg.str());
}

struct MutantEntry {
  std::uint32_t rows, cols;
  RtlMutantMaker make;
};

// Keyed by name: std::map keeps listings sorted and deterministic.
std::map<std::string, MutantEntry>& mutants() {
  static std::map<std::string, MutantEntry> table = [] {
    std::map<std::string, MutantEntry> t;
#define MXCOSIM_MUTANT_ENTRY(r, c, name, cls)                                                      \
  t[name] = MutantEntry{r, c, [](const RtlTileConfig& cfg, const TileGeometry& geo, MemoryTarget& mem) { \
                          return std::unique_ptr<RtlTile>(std::make_unique<VerilatedTile<cls>>(cfg, geo, mem)); \
                        }};
    MXCOSIM_FOR_EACH_RTL_MUTANT(MXCOSIM_MUTANT_ENTRY)
#undef MXCOSIM_MUTANT_ENTRY
    return t;
  }();
  return table;
}

}  // namespace

void register_rtl_mutant(const std::string& name, std::uint32_t rows, std::uint32_t cols, RtlMutantMaker make) {
  mutants()[name] = MutantEntry{rows, cols, std::move(make)};
}

std::vector<std::string> rtl_tile_mutants() {
  std::vector<std::string> names;
  for (const auto& [name, e] : mutants())
    names.push_back(name + " (" + std::to_string(e.rows) + "x" + std::to_string(e.cols) + ")");
  return names;
}

void check_rtl_mutant(const std::string& name, std::uint32_t rows, std::uint32_t cols) {
  const auto it = mutants().find(name);
  if (it != mutants().end() && it->second.rows == rows && it->second.cols == cols) return;
  std::ostringstream msg;
  msg << "no RTL mutant '" << name << "' of a " << rows << "x" << cols << " array in this build; built:";
  const auto names = rtl_tile_mutants();
  if (names.empty()) msg << " none";
  for (const auto& n : names) msg << " " << n;
  msg << " (configure with -DMXCOSIM_RTL_MUTANTS=\"" << name << ";...\", docs/mutants.md)";
  throw std::invalid_argument(msg.str());
}

TileGeometry rtl_tile_geometry(std::uint32_t rows, std::uint32_t cols) {
  const auto sizes = rtl_tile_sizes();
  if (std::find(sizes.begin(), sizes.end(), std::pair{rows, cols}) == sizes.end()) no_such_size(rows, cols);
  return rtl_like_geometry(rows, cols);
}

TileGeometry rtl_like_geometry(std::uint32_t rows, std::uint32_t cols) {
  TileGeometry g;
  g.rows = rows;
  g.cols = cols;
  g.acc_rows = MXCOSIM_RTL_ACC_ROWS;
  g.sp_rows = MXCOSIM_RTL_SP_ROWS;
  g.beat_bytes = MXCOSIM_RTL_DATA_W / 8;
  return g;
}

std::unique_ptr<RtlTile> make_rtl_tile(const RtlTileConfig& cfg, MemoryTarget& mem) {
  const TileGeometry geo = rtl_tile_geometry(cfg.rows, cfg.cols);
  if (!cfg.mutant.empty()) {
    check_rtl_mutant(cfg.mutant, cfg.rows, cfg.cols);
    return mutants().at(cfg.mutant).make(cfg, geo, mem);
  }
#define MXCOSIM_SIZE_ENTRY(r, c, cls) \
  if (cfg.rows == (r) && cfg.cols == (c)) return std::make_unique<VerilatedTile<cls>>(cfg, geo, mem);
  MXCOSIM_FOR_EACH_RTL_SIZE(MXCOSIM_SIZE_ENTRY)
#undef MXCOSIM_SIZE_ENTRY
  no_such_size(cfg.rows, cfg.cols);
}

}  // namespace mxc
