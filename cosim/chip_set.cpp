#include "cosim/chip_set.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "bridge/transport/remote_memory.h"
#include "cosim/tile_factory.h"
#include "models/core/ideal_memory.h"
#include "models/hbm/config_loader.h"
#include "models/hbm/hbm_model.h"
#include "models/ici/fabric_factory.h"
#include "models/ici/ici_config_loader.h"
#include "models/mxu/model_tile.h"

namespace mxc {

namespace {

// IciPacket::addr carries the row's routing fields: destination row in bits
// 15:0, to_acc in 16, bf16 in 17, destination tile in 23:18.
std::uint64_t pack_row_addr(const IciRow& r, std::uint32_t tile) {
  return std::uint64_t{r.row} | std::uint64_t{r.to_acc} << 16 | std::uint64_t{r.bf16} << 17 | std::uint64_t{tile} << 18;
}

}  // namespace

ChipSet::ChipSet(const SystemConfig& cfg, const TileGeometry& geometry, const ChipSetOptions& opts)
    : m_cfg(cfg), m_geo(geometry), m_opts(opts) {
  validate(cfg);
  m_chips.resize(cfg.chips);
  m_local.assign(cfg.chips, opts.chips.empty());
  for (std::uint32_t c : opts.chips) {
    if (c >= cfg.chips)
      throw std::invalid_argument("chip " + std::to_string(c) + " asked for, but the system has " +
                                  std::to_string(cfg.chips) + " chips");
    m_local[c] = true;
  }
  m_split = !opts.chips.empty() && opts.chips.size() < cfg.chips;
  if (m_split && (cfg.chips < 2 || !opts.make_fabric))
    throw std::invalid_argument("a split run needs two or more chips and a link to the other processes");
  hbm::MemoryConfig hbm_cfg;
  if (cfg.memory == "hbm") {
    hbm_cfg = opts.hbm_preset ? *opts.hbm_preset : hbm::load_memory_config(cfg.hbm_config);
    // The system's setting decides (on by default), over the preset's check_timing: a preset
    // asking for the checker must not keep a system that turns it off from doing so.
    hbm_cfg.check_timing = opts.check_memory_timing && cfg.hbm_timing_check;
  }
  // Performance-model tiles carry no data: a memory only they use keeps the timing alone.
  bool any_rtl = false;
  for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) any_rtl = any_rtl || kind(t) == TileKind::kRtl;
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    if (!m_local[c]) continue;
    Chip& chip = m_chips[c];
    const std::string chip_name = opts.prefix + ".chip" + std::to_string(c);
    if (opts.make_memory) {
      chip.memory = opts.make_memory(c, chip_name + ".mem");
      chip.remote = dynamic_cast<transport::RemoteMemoryTarget*>(chip.memory.get());
      chip.memory->set_timing_only(!any_rtl);
    } else {
      std::unique_ptr<MemoryTarget> mem;
      if (cfg.memory == "hbm") {
        auto hbm = std::make_unique<hbm::HbmModel>(chip_name + ".hbm", hbm_cfg);
        if (opts.record_hbm_commands)
          hbm->set_command_observer(
              [&commands = chip.commands](std::uint32_t pc, const hbm::DramCommand& cmd) { commands.push_back({pc, cmd}); });
        chip.hbm = hbm.get();
        mem = std::move(hbm);
      } else {
        mem = std::make_unique<IdealMemory>(chip_name + ".mem", cfg.ideal_latency_ps, cfg.ideal_outstanding);
      }
      mem->set_timing_only(!any_rtl);
      const MemoryCallLog* log = c < opts.replay_memory.size() ? opts.replay_memory[c] : nullptr;
      if (opts.record_memory_calls) {
        auto r = std::make_unique<RecordingMemory>(std::move(mem));
        chip.recorder = r.get();
        mem = std::move(r);
      } else if (log) {
        auto r = std::make_unique<ReplayMemory>(*log, std::move(mem));
        chip.replay = r.get();
        mem = std::move(r);
      }
      chip.memory = std::move(mem);
    }
    std::vector<std::uint32_t> sources;
    for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) sources.push_back(t);
    chip.ports = std::make_unique<SharedMemory>(*chip.memory, sources);
    for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) {
      TileSpec spec;
      spec.name = chip_name + ".tile" + std::to_string(t);
      spec.kind = kind(t);
      spec.geometry = geometry;
      spec.clock_mhz = cfg.tile_mhz;
      spec.chip = c;
      spec.source_id = t;
      spec.seed = opts.seed * 1000003 + c * 64 + t;
      spec.backpressure = cfg.backpressure;
      if (spec.kind == TileKind::kRtl) spec.mutant = opts.mutant;
      if (c == 0 && t == 0 && spec.kind == TileKind::kRtl) {
        spec.waveform = opts.waveform;
        spec.waveform_from_cycle = opts.waveform_from_cycle;
        spec.waveform_to_cycle = opts.waveform_to_cycle;
      }
      chip.monitors.push_back(std::make_unique<MemoryMonitor>(chip.ports->port(t), spec.name + ".mem"));
      chip.tiles.push_back(make_tile(spec, *chip.monitors.back()));
      chip.outbound.push_back(&chip.tiles.back()->outbound());
      m_all_outbound.push_back(chip.outbound.back());
      chip.ici_sends.emplace_back();
    }
    if (chip.replay && c < opts.replay_request_logs.size()) {
      if (opts.replay_request_logs[c].size() != cfg.tiles_per_chip)
        throw std::invalid_argument("replay_request_logs: chip " + std::to_string(c) + " needs one log per tile");
      for (auto& m : chip.monitors) m->pause_logging();
      chip.replay->set_on_diverge([this, c](std::uint64_t calls) { catch_up_monitors(c, calls); });
    }
    m_all_pending.push_back(&chip.pending);
  }
  if (cfg.chips > 1) {
    if (opts.make_fabric) {
      m_fabric = opts.make_fabric();
    } else {
      const ici::IciConfig ici = ici::load_ici_config(cfg.ici_config);
      m_fabric = ici::make_fabric(ici);
    }
    // A file's system was checked with its lines when loaded (parse_system_config); this is
    // for systems built otherwise.
    if (const std::string why = fabric_misfit(cfg.chips, m_fabric->num_chips(), cfg.ici_config); !why.empty())
      throw std::invalid_argument(cfg.file + ": field 'system.chips': " + why);
    m_fabric_step.attach(m_fabric.get());
    m_fabric->set_delivery([this](const IciPacket& p) {
      IciRow r;
      r.src = p.src;
      r.dst = p.dst;
      r.row = static_cast<std::uint16_t>(p.addr & 0xffff);
      r.to_acc = (p.addr >> 16) & 1;
      r.bf16 = (p.addr >> 17) & 1;
      r.bytes = static_cast<std::uint16_t>(p.bytes);
      r.last = p.last;
      r.data = p.payload;
      const std::uint32_t tile = static_cast<std::uint32_t>((p.addr >> 18) & 0x3f);
      m_ici_bytes += p.bytes;
      m_delivered.push_back(p);
      m_delivered.back().payload.clear();  // the log keeps timing, not data
      m_chips.at(p.dst).tiles.at(tile)->push_inbound_at(std::move(r), p.deliver);
    });
  }
}

ChipSet::~ChipSet() = default;

// Ids as the in-process kernel numbers them: tile t of chip c is c * tiles + t, then the
// memories, then the fabric; chips built elsewhere keep their ids unused here.
void ChipSet::add_to(Kernel& kernel, Kernel::ComponentId base) {
  const std::uint32_t chips = m_cfg.chips, tiles = m_cfg.tiles_per_chip;
  for (std::uint32_t c = 0; c < chips; ++c)
    for (std::uint32_t t = 0; t < m_chips[c].tiles.size(); ++t) kernel.add(*m_chips[c].tiles[t], base + c * tiles + t);
  for (std::uint32_t c = 0; c < chips; ++c)
    if (m_chips[c].memory) kernel.add(*m_chips[c].memory, base + chips * tiles + c);
  if (m_fabric) kernel.add(m_fabric_step, base + chips * tiles + chips);
}

Kernel::ComponentId ChipSet::components() const {
  return m_cfg.chips * m_cfg.tiles_per_chip + m_cfg.chips + (m_cfg.chips > 1 ? 1 : 0);
}

Time ChipSet::next_event_time() const {
  Time t = kNever;
  for (const auto& chip : m_chips) {
    for (const auto& tile : chip.tiles) t = std::min(t, tile->next_event_time());
    if (chip.memory) t = std::min(t, chip.memory->next_event_time());
  }
  return t;
}

void ChipSet::load_image(std::uint32_t chip, const SparseMemory& image) {
  MemoryTarget& mem = *m_chips.at(chip).memory;
  image.for_each_page([&](std::uint64_t addr, std::span<const std::uint8_t> bytes) { mem.backdoor_write(addr, bytes); });
}

void ChipSet::load_program(std::uint32_t chip, std::uint32_t tile, Program program) {
  m_traffic += program_traffic(program);
  m_chips.at(chip).tiles.at(tile)->load_program(std::move(program));
}

void ChipSet::move_rows(Time now) {
  for (std::uint32_t c = 0; c < m_chips.size(); ++c) {
    if (!m_local[c]) continue;
    Chip& chip = m_chips[c];
    for (std::uint32_t t = 0; t < chip.outbound.size(); ++t) {
      auto& out = *chip.outbound[t];
      while (!out.empty()) {
        IciRow r = std::move(out.front());
        out.pop_front();
        chip.ici_sends[t].push_back({now, r.dst, r.row, r.bytes, r.to_acc, r.last});
        if (r.dst >= m_chips.size())
          throw std::runtime_error(chip.tiles[t]->name() + ": ICI row for chip " + std::to_string(r.dst) +
                                   ", but the system has " + std::to_string(m_chips.size()) + " chips");
        if (r.dst == c || !m_fabric) {
          // A chip's rows for itself never leave it: delivered at once, and logged as such for
          // the timeline as the fabric's deliveries are (their bytes count in ici_bytes too).
          IciPacket p;
          p.id = m_next_local++;
          p.src = c;
          p.dst = r.dst;
          p.bytes = r.bytes;
          p.addr = pack_row_addr(r, t);
          p.last = r.last;
          p.inject = p.deliver = now;
          m_delivered.push_back(std::move(p));
          m_ici_bytes += r.bytes;
          m_chips[r.dst].tiles[t]->push_inbound_at(std::move(r), now);
          continue;
        }
        IciPacket p;
        // A split run's packets are numbered by the server, in the global order; what it needs
        // from here is the sending tile's place in that order: its global component id.
        p.id = m_split ? std::uint64_t{c} * m_cfg.tiles_per_chip + t : m_next_packet++;
        p.src = c;
        p.dst = r.dst;
        p.bytes = r.bytes;
        p.addr = pack_row_addr(r, t);
        p.last = r.last;
        p.payload = std::move(r.data);
        chip.pending.push_back(std::move(p));
      }
    }
    // inject() itself refuses when the queue is full, after running the fabric's
    // events due by `now` (can_inject() has no time: it cannot).
    while (!chip.pending.empty() && m_fabric->inject(chip.pending.front(), now)) chip.pending.pop_front();
  }
  m_offered_at_step = m_fabric_step.steps();
}

bool ChipSet::finished() const {
  for (const auto& chip : m_chips) {
    if (!chip.pending.empty()) return false;
    for (const auto& t : chip.tiles)
      if (!t->finished()) return false;
  }
  // A split run's fabric is the server's: it judges the fabric's end (docs/transport.md).
  return m_split || !m_fabric || m_fabric->next_event_time() == kNever;
}

std::size_t ChipSet::completed_instructions() const {
  std::size_t n = 0;
  for (const auto& chip : m_chips)
    for (const auto& t : chip.tiles) n += t->completed_instructions();
  return n;
}

std::uint64_t ChipSet::progress() const {
  std::uint64_t answered = 0;
  for (const auto& chip : m_chips)
    for (const auto& m : chip.monitors) answered += m->answered();
  // Each answer carries at least a byte of a DMA's: more answers than its bytes is a
  // transfer that never ends.
  return completed_instructions() + std::min(answered, m_traffic.dma_bytes) +
         std::min(m_ici_bytes, m_traffic.ici_bytes);
}

std::uint64_t ChipSet::max_tile_cycles() const {
  std::uint64_t n = 0;
  for (const auto& chip : m_chips)
    for (const auto& t : chip.tiles) n = std::max(n, t->cycles());
  return n;
}

void ChipSet::finish(Time now) {
  // A model tile asleep when the run stopped (a hang: waiting on a memory or a row that never
  // came) last counted its cycles when it went to sleep: brought to the stop, as a tile that
  // evaluates every cycle (RTL) stands there.
  for (auto& chip : m_chips)
    for (auto& t : chip.tiles)
      if (auto* model = dynamic_cast<ModelTile*>(t.get())) model->stop_at(now);
  for (auto& chip : m_chips)
    if (chip.hbm && (!chip.replay || chip.replay->diverged())) chip.hbm->finish(now);
  // A served HBM model finishes in its server, and what it found comes back for the results.
  for (auto& chip : m_chips)
    if (chip.remote) chip.remote->finish(now);
  for (std::uint32_t c = 0; c < m_chips.size(); ++c) {
    Chip& chip = m_chips[c];
    if (!chip.replay || chip.replay->diverged() || c >= m_opts.replay_request_logs.size()) continue;
    // Every call the design's memory took, answered alike: each tile's requests are the design
    // tile's, if that one stamped its requests with its own source as this one does.
    const std::vector<const MemoryLog*>& design = m_opts.replay_request_logs[c];
    const MemoryCallLog& log = chip.replay->log();
    bool same = !log.truncated() && chip.replay->replayed_calls() == log.published_calls();
    for (std::uint32_t t = 0; same && t < design.size(); ++t)
      for (const MemoryLogEntry& e : *design[t]) same = same && e.source == t;
    if (same)
      chip.stand_in_logs = design;
    else
      catch_up_monitors(c, chip.replay->replayed_calls());
  }
}

void ChipSet::catch_up_monitors(std::uint32_t c, std::uint64_t calls) {
  Chip& chip = m_chips[c];
  // The shared memory hands each completion to the port of its source, and a tile's requests
  // carry its port's source (ModelTile stamps its own).
  log_replayed_calls(chip.replay->log(), calls, [&](std::uint32_t source) -> MemoryMonitor& {
    return *chip.monitors.at(source);
  });
  for (auto& m : chip.monitors) m->resume_logging();
}

const ClockDomain* ChipSet::hbm_clock(std::uint32_t chip) const {
  const hbm::HbmModel* h = m_chips.at(chip).hbm;
  return h ? &h->clock() : nullptr;
}

const transport::FinishMsg* ChipSet::served_hbm_report(std::uint32_t chip) const {
  const transport::RemoteMemoryTarget* r = m_chips.at(chip).remote;
  return r ? r->end_report() : nullptr;
}

bool ChipSet::hbm_timing_checked(std::uint32_t chip) const {
  const hbm::HbmModel* h = m_chips.at(chip).hbm;
  if (const auto* served = served_hbm_report(chip)) return served->timing_checked;
  return h && h->checker();
}

std::vector<std::string> ChipSet::hbm_violations(std::uint32_t chip) const {
  const hbm::HbmModel* h = m_chips.at(chip).hbm;
  if (const auto* served = served_hbm_report(chip)) return served->violations;
  if (!h || !h->checker()) return {};
  return h->checker()->violations();
}

std::uint64_t ChipSet::hbm_requests_beyond_capacity(std::uint32_t chip) const {
  const hbm::HbmModel* h = m_chips.at(chip).hbm;
  if (const auto* served = served_hbm_report(chip)) return served->beyond_capacity;
  return h ? h->requests_beyond_capacity() : 0;
}

const MemoryCallLog* ChipSet::memory_calls(std::uint32_t chip) const {
  const RecordingMemory* r = m_chips.at(chip).recorder;
  return r ? &r->log() : nullptr;
}

bool ChipSet::memory_replayed(std::uint32_t chip) const {
  const ReplayMemory* r = m_chips.at(chip).replay;
  return r && !r->diverged();
}

std::string ChipSet::state() const {
  std::ostringstream s;
  for (const auto& chip : m_chips)
    for (const auto& t : chip.tiles)
      if (!t->finished()) s << (s.tellp() > 0 ? "; " : "") << t->state();
  return s.str();
}

}  // namespace mxc
