#include "models/mxu/workloads/model_system.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>

#include "models/core/ideal_memory.h"
#include "models/hbm/hbm_model.h"
#include "models/ici/fabric_factory.h"
#include "models/ici/topology.h"
#include "models/mxu/model_tile.h"

namespace mxc {

ModelSystemResult run_model_system(const std::vector<Program>& programs, const ModelSystemConfig& cfg) {
  const auto P = static_cast<std::uint32_t>(programs.size());
  if (P == 0 || P > 256) throw std::invalid_argument("model system: 1..256 programs (one per chip)");
  std::vector<std::unique_ptr<MemoryTarget>> memories;
  std::vector<std::unique_ptr<ModelTile>> tiles;
  std::vector<Component*> components;  // registration order = tie-break order
  for (std::uint32_t c = 0; c < P; ++c) {
    if (cfg.ideal_memory)
      memories.push_back(
          std::make_unique<IdealMemory>("mem" + std::to_string(c), cfg.memory_latency_ps, cfg.memory_outstanding));
    else
      memories.push_back(std::make_unique<hbm::HbmModel>("hbm" + std::to_string(c), cfg.hbm));
    memories.back()->set_timing_only(true);  // model tiles carry no data
    ModelTileConfig tc;
    tc.name = "tile" + std::to_string(c);
    tc.geometry = cfg.geometry;
    tc.chip = c;
    tc.clock_mhz = cfg.clock_mhz;
    tiles.push_back(std::make_unique<ModelTile>(tc, *memories.back()));
    tiles.back()->load_program(programs[c]);
    components.push_back(tiles.back().get());
    components.push_back(memories.back().get());
  }
  // Rows to other chips travel as fabric packets; the row itself waits here
  // until its packet is delivered.
  std::unique_ptr<Fabric> fabric;
  std::map<std::pair<std::uint32_t, std::uint64_t>, IciRow> in_flight;
  std::vector<std::uint64_t> next_id(P, 0);
  std::uint64_t ici_bytes = 0;  // delivered to tiles (watchdog progress)
  ici::IciConfig ic;  // a ring
  ic.dims = {P};
  ic.wrap = {P > 2};
  ic.link_gbps = cfg.ici_gbps;
  if (P > 1) {
    fabric = ici::make_fabric(ic);
    fabric->set_delivery([&](const IciPacket& pkt) {
      auto it = in_flight.find({pkt.src, pkt.id});
      ici_bytes += it->second.bytes;
      // The fabric is registered after the tiles: the delivery time keeps the
      // row exact while the destination tile skips idle cycles.
      tiles[pkt.dst]->push_inbound_at(std::move(it->second), pkt.deliver);
      in_flight.erase(it);
    });
    components.push_back(fabric.get());
  }

  const auto route = [&](Time now) {
    for (std::uint32_t c = 0; c < P; ++c) {
      auto& out = tiles[c]->outbound();
      while (!out.empty()) {
        IciRow& row = out.front();
        if (row.dst == c) {
          ici_bytes += row.bytes;
          tiles[c]->push_inbound(std::move(row));
        } else {
          if (row.dst >= P)
            throw std::invalid_argument("chip " + std::to_string(c) + " sends to chip " + std::to_string(row.dst) +
                                        " of a " + std::to_string(P) + "-chip system");
          IciPacket pkt;
          pkt.id = next_id[c];
          pkt.src = c;
          pkt.dst = row.dst;
          pkt.bytes = row.bytes;
          pkt.last = true;
          if (!fabric->inject(pkt, now)) break;  // offered again after the next event
          ++next_id[c];
          in_flight.emplace(std::make_pair(c, pkt.id), std::move(row));
        }
        out.pop_front();
      }
    }
  };
  const auto all_finished = [&] {
    for (const auto& t : tiles)
      if (!t->finished()) return false;
    return true;
  };

  // Progress for the watchdog: instructions completed, and the beats the DMAs moved and the
  // ICI bytes delivered up to what the programs move (a beat carries at least one of a
  // DMA's bytes), so a long transfer is progress and one that never ends is not.
  ProgramTraffic traffic;
  for (const Program& p : programs) traffic += program_traffic(p);
  Time now = 0, last_progress = 0;
  std::uint64_t progress = 0;
  bool hung = false;
  // No less than twice the longest a healthy run may wait for one event of progress: an ideal
  // memory's latency, or a scratchpad row's trip over the ring's longest path with no traffic.
  // At a fast clock or over a slow link either passes the cycles (a 1 us hop is 200 000
  // cycles at 200 GHz), and there is no option to raise them.
  Time longest_wait = cfg.ideal_memory ? cfg.memory_latency_ps : 0;
  if (fabric)
    longest_wait = std::max(
        longest_wait, ic.zero_load_ps(ici::Topology(ic.dims, ic.wrap).diameter(), cfg.geometry.sp_row_bytes()));
  const double period_ps = 1e6 / cfg.clock_mhz;
  const Time watchdog_ps =
      std::max(static_cast<Time>(static_cast<double>(cfg.watchdog_cycles) * period_ps), 2 * longest_wait);
  const auto watchdog_cycles = static_cast<std::uint64_t>(std::ceil(static_cast<double>(watchdog_ps) / period_ps));
  while (!all_finished()) {
    std::uint64_t done = 0, beats = 0;
    for (const auto& tile : tiles) {
      done += tile->completed_instructions();
      beats += (tile->bytes_read() + tile->bytes_written()) / cfg.geometry.beat_bytes;
    }
    done += std::min(beats, traffic.dma_bytes) + std::min(ici_bytes, traffic.ici_bytes);
    if (done != progress) {
      progress = done;
      last_progress = now;
    } else if (now - last_progress > watchdog_ps) {
      hung = true;
      break;
    }
    Component* next = nullptr;
    Time t = kNever;
    for (Component* c : components) {
      const Time ct = c->next_event_time();
      if (ct < t) {
        t = ct;
        next = c;
      }
    }
    if (!next) break;  // nothing can happen any more
    now = t;
    next->advance_to(t);
    route(now);
  }

  ModelSystemResult r;
  r.sim_time_ps = now;
  r.finished = true;
  std::map<std::string, std::uint64_t> sums;
  std::vector<std::string> order;
  for (std::uint32_t c = 0; c < P; ++c) {
    const ModelTile& t = *tiles[c];
    if (!t.finished()) {
      r.finished = false;
      r.error += (r.error.empty() ? "" : "; ") + std::string("chip ") + std::to_string(c) + " did not finish" +
                 (hung ? " (no progress for " + std::to_string(watchdog_cycles) + " cycles)" : "") +
                 ": " + t.state();
    }
    r.chip_cycles.push_back(t.cycles());
    r.cycles = std::max(r.cycles, t.cycles());
    r.bytes_read += t.bytes_read();
    r.bytes_written += t.bytes_written();
    for (const auto& [name, value] : t.perf_counters()) {
      if (!sums.count(name)) order.push_back(name);
      sums[name] += value;
    }
  }
  for (const auto& name : order) r.counters.emplace_back(name, sums[name]);
  if (!cfg.ideal_memory)
    for (auto& m : memories) static_cast<hbm::HbmModel&>(*m).finish(now);
  return r;
}

}  // namespace mxc
