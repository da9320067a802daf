#include "models/mxu/functional_system.h"

#include <stdexcept>
#include <string>

namespace mxc {

FunctionalSystem::FunctionalSystem(const TileGeometry& geometry, std::uint32_t chips) {
  if (chips == 0 || chips > 256) throw std::invalid_argument("functional system: chips must be in 1..256");
  m_pending.assign(chips, 0);
  s_rows_sent.assign(chips, 0);
  for (std::uint32_t c = 0; c < chips; ++c) {
    m_mem.push_back(std::make_unique<SparseMemory>());
    m_tiles.push_back(std::make_unique<FunctionalTile>(geometry, *m_mem.back(), c));
  }
  for (std::uint32_t c = 0; c < chips; ++c) {
    m_tiles[c]->set_send([this, c](const IciRow& row) {
      if (row.dst >= m_tiles.size())
        throw std::invalid_argument("chip " + std::to_string(c) + ": ici_send to chip " + std::to_string(row.dst) +
                                    " of a " + std::to_string(m_tiles.size()) + "-chip system");
      ++s_rows_sent[c];
      ++m_pending[row.dst];
      m_tiles[row.dst]->receive(row);
    });
  }
}

void FunctionalSystem::run(const std::vector<Program>& programs, const InstrNamer& name) {
  if (programs.size() != m_tiles.size())
    throw std::invalid_argument("functional system: " + std::to_string(programs.size()) + " programs for " +
                                std::to_string(m_tiles.size()) + " chips");
  const auto named = [&](std::size_t c, std::size_t i) {
    return name ? name(c, i) : "instruction " + std::to_string(i);
  };
  std::vector<std::size_t> pc(programs.size(), 0);
  for (;;) {
    bool progressed = false, done = true;
    for (std::size_t c = 0; c < programs.size(); ++c) {
      if (pc[c] >= programs[c].size()) continue;
      done = false;
      const Instr& in = programs[c][pc[c]];
      bool ok;
      try {
        ok = m_tiles[c]->step(in);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("chip " + std::to_string(c) + " " + named(c, pc[c]) + ": " + e.what());
      }
      if (!ok) continue;
      if (in.op == Opcode::ICI_WAIT) m_pending[c] -= in.rows;
      ++pc[c];
      progressed = true;
    }
    if (done) return;
    if (!progressed) {
      std::string msg = "deadlock: no chip can progress;";
      for (std::size_t c = 0; c < programs.size(); ++c) {
        if (pc[c] >= programs[c].size()) continue;
        const Instr& in = programs[c][pc[c]];
        msg += " chip " + std::to_string(c) + " at " + named(c, pc[c]) + " '" + describe(in) +
               "' has " + std::to_string(m_pending[c]) + " of " + std::to_string(in.rows) + " rows;";
      }
      msg.pop_back();
      throw std::runtime_error(msg);
    }
  }
}

}  // namespace mxc
