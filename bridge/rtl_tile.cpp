#include "bridge/rtl_tile.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

#include "bridge/axi4_protocol_error.h"
#include "bridge/verilated_tile.h"
#include "rtl_sizes.h"

namespace mxc {

const char* InstrMonitor::unit_name(unsigned unit) {
  static const char* const kNames[] = {"dma", "compute", "ici"};
  return unit < kUnits ? kNames[unit] : "none";
}

void InstrMonitor::load(std::size_t instructions) {
  m_events.assign(instructions, InstrEvent{0, 0, 0, false, false});
  for (std::size_t i = 0; i < m_events.size(); ++i) m_events[i].index = i;
  for (auto& q : m_pending) q.clear();
  m_dispatched = 0;
  m_completed = 0;
}

void InstrMonitor::fail(const std::string& pin, std::uint64_t cycle, Time now, const std::string& field,
                        const std::string& expected, const std::string& actual) const {
  const std::string id = "cycle " + std::to_string(cycle);
  throw RtlPinError(m_tile + ": " + id + ": " + field + " (expected " + expected + ", got " + actual + ")",
                    {now, "monitor " + m_tile + "." + pin, id, field, expected, actual},
                    "an instruction event no instruction of the program explains");
}

void InstrMonitor::on_edge(unsigned done, bool dispatch, unsigned unit, std::uint64_t cycle, Time now) {
  for (unsigned u = 0; u < kUnits; ++u) {
    if (((done >> u) & 1) == 0) continue;
    std::deque<std::size_t>& q = m_pending[u];
    if (q.empty())
      fail(unit_name(u), cycle, now, "done with nothing pending",
           std::string("ev_done[") + std::to_string(u) + "] low: no instruction pending on " + unit_name(u) + " (" +
               std::to_string(m_completed) + " of " + std::to_string(m_events.size()) + " completed)",
           std::string("ev_done[") + std::to_string(u) + "] high");
    m_events[q.front()].end = cycle;
    m_events[q.front()].done = true;
    q.pop_front();
    ++m_completed;
  }
  if (!dispatch) return;
  if (m_dispatched >= m_events.size())
    fail("dispatch", cycle, now, "dispatch beyond the program",
         "no dispatch after the program's " + std::to_string(m_events.size()) + " instructions",
         "dispatch " + std::to_string(m_dispatched + 1) + " (ev_unit " + std::to_string(unit) + ")");
  const std::size_t i = m_dispatched++;
  m_events[i].start = cycle;
  m_events[i].dispatched = true;
  if (unit >= kUnits) {  // no unit: done when dispatched
    m_events[i].end = cycle;
    m_events[i].done = true;
    ++m_completed;
  } else {
    m_pending[unit].push_back(i);
  }
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
