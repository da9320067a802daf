#include "cosim/system_run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "bridge/axi4_protocol_error.h"
#include "bridge/data_scoreboard.h"
#include "bridge/timing_correlator.h"
#include "bridge/transport/channel.h"
#include "bridge/transport/chip_port.h"
#include "bridge/rtl_tile.h"
#include "cosim/chip_set.h"
#include "cosim/json_text.h"
#include "cosim/kernel.h"
#include "cosim/result_parts.h"
#include "cosim/timeline.h"
#include "cosim/trace_writer.h"
#include "models/hbm/config_loader.h"
#include "models/mxu/functional_system.h"
#include "models/mxu/functional_tile.h"

namespace mxc {

namespace {

/// Every tile's geometry: an RTL size when any tile is RTL, any size for a
/// system of model tiles only.
TileGeometry system_geometry(const SystemConfig& c) {
  return has_rtl_tile(c) ? rtl_tile_geometry(c.rows, c.cols) : rtl_like_geometry(c.rows, c.cols);
}

/// The timing correlator's name for tile t of chip c's ICI rows.
std::string ici_channel(std::uint32_t c, std::uint32_t t) {
  return "timing ici chip" + std::to_string(c) + ".tile" + std::to_string(t);
}

/// Each chip's memory when the run starts: the workload's image with what its tiles' stores
/// write poisoned (poison_stores), for the design and the reference alike. Here rather than in
/// build_workload, so that every workload a run is given starts so.
std::vector<SparseMemory> initial_images(const Workload& w, const TileGeometry& geo) {
  std::vector<SparseMemory> images;
  for (std::size_t c = 0; c < w.images.size(); ++c) {
    images.push_back(w.images[c].clone());
    poison_stores(images.back(), w.programs.at(c), geo.beat_bytes);
  }
  return images;
}

/// The memory image the functional reference leaves on each chip, from the images the run
/// starts with (initial_images). Tile t of every chip runs as one multi-chip functional system
/// (its ICI peers are tile t of the other chips); the tiles of a chip run one after another.
/// Notes what the programs read that they never wrote, per tile.
ReferenceResult run_reference(const Workload& w, const TileGeometry& geo) {
  std::vector<SparseMemory> images = initial_images(w, geo);
  std::vector<std::string> undefined;
  const auto chips = static_cast<std::uint32_t>(images.size());
  const std::size_t tiles = w.programs.empty() ? 0 : w.programs[0].size();
  for (std::size_t t = 0; t < tiles; ++t) {
    FunctionalSystem sys(geo, chips);
    std::vector<Program> programs;
    for (std::uint32_t c = 0; c < chips; ++c) {
      images[c].for_each_page([&](std::uint64_t a, std::span<const std::uint8_t> b) { sys.memory(c).write(a, b); });
      programs.push_back(w.programs[c][t]);
    }
    // A program file's instructions by their lines, in the file of the chip that runs them.
    FunctionalSystem::InstrNamer name;
    if (!w.sources.empty()) name = [&](std::size_t chip, std::size_t i) { return w.sources.at(chip).where(i); };
    sys.run(programs, name);
    for (std::uint32_t c = 0; c < chips; ++c) {
      images[c] = sys.memory(c).clone();
      for (const std::string& note : sys.tile(c).undefined_reads())
        undefined.push_back("chip" + std::to_string(c) + ".tile" + std::to_string(t) + ": " + note);
    }
  }
  return {std::move(images), std::move(undefined)};
}

void write_trace(const std::string& path, const SystemConfig& cfg, const Workload& work, const ChipSet& dut,
                 const ChipSet* shadow, const std::atomic<bool>* stop) {
  TraceWriter out(path);
  out.set_stop(stop);
  int pid = 1;
  // A split run's client writes the chips it runs (docs/transport.md): every process id is
  // the one-process timeline's, those of chips run elsewhere stay unused.
  for (const ChipSet* set : {&dut, shadow}) {
    if (!set) continue;
    for (std::uint32_t c = 0; c < cfg.chips; ++c)
      for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t, ++pid) {
        if (!set->local(c)) continue;
        const Tile& tile = set->tile(c, t);
        out.process(pid, tile.name());
        trace_instructions(out, pid, work.programs[c][t], tile.instr_events(), tile.clock());
        trace_memory(out, pid, set->memory_log(c, t));
      }
  }
  for (std::uint32_t c = 0; c < cfg.chips && cfg.memory == "hbm"; ++c, ++pid)
    if (const ClockDomain* clk = dut.local(c) ? dut.hbm_clock(c) : nullptr) {  // served: not seen here
      out.process(pid, "dut.chip" + std::to_string(c) + ".hbm");
      trace_hbm_commands(out, pid, dut.hbm_commands(c), *clk);
    }
  out.process(pid, "ici");
  trace_ici(out, pid, dut.ici_delivered());
  out.close();
}


}  // namespace

Workload build_run_workload(const SystemRunOptions& opts) {
  validate(opts.system);
  const TileGeometry geo = system_geometry(opts.system);
  Workload work = build_workload(opts.workload, opts.system, geo, opts.seed);
  // A program that deadlocks (or that the reference refuses) is an input error like a bad
  // line: worked out here, before a run's header or a server's session.
  work.reference = std::make_shared<const ReferenceResult>(run_reference(work, geo));
  return work;
}

SystemRunResult run_system(const SystemRunOptions& opts) { return run_system(opts, build_run_workload(opts)); }

namespace {

// Every early stop of a split run says this, in the client that stops and, relayed by the
// server, in the others.
constexpr std::string_view kStoppedEarly = "stopped before the end of the split run";
// The error of a run stopped at SystemRunOptions::stop; in a split run, relayed to the other
// clients within their kStoppedEarly error, where it tells them not to re-run the whole run.
constexpr std::string_view kStoppedBySignal = "stopped by a signal";

// This client of a split run stopped before the common end, or learnt that another did.
struct SplitStopped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

SystemRunResult run_once(const SystemRunOptions& opts, const Workload& work);

}  // namespace

const ResultRegion* fault_region(const SystemRunOptions& opts, const Workload& work) {
  if (!opts.inject_fault) return nullptr;
  const std::uint64_t idx = *opts.inject_fault;
  for (const ResultRegion& r : work.regions.at(0)) {
    if (opts.system.tile_kinds.at(r.producer_tile) != TileKind::kRtl) continue;
    const std::uint64_t cols = r.layout.cols;
    const std::uint64_t first = std::min(r.first_row, r.layout.rows) * cols;
    const std::uint64_t end = std::min(r.end_row, r.layout.rows) * cols;
    if (idx < first || idx >= end)
      throw std::invalid_argument("--inject-fault " + std::to_string(idx) + ": chip 0 holds elements " +
                                  std::to_string(first) + " to " + std::to_string(end - 1) + " of result '" + r.name +
                                  "'");
    return &r;
  }
  throw std::invalid_argument("--inject-fault: chip 0 has no result an RTL tile writes (" +
                              std::string(work.regions.at(0).empty() ? "a program run checks memory, not a result"
                                                                     : "its results come from model tiles") +
                              "), so there is nothing to flip");
}

namespace {

// Tile cycles the shadow's thread runs at a time once it has caught up with the design: few
// enough wake-ups to cost nothing, short enough to keep both threads busy.
constexpr double kShadowChunkCycles = 512;

/// A place in the whole system's step order (time, then global component id): after the step
/// of component `id` at `time`, or, with `stepped` false, the start, before any step.
struct StepPoint {
  bool stepped = false;
  Time time = 0;
  Kernel::ComponentId id = 0;
};

bool operator<(const StepPoint& a, const StepPoint& b) {
  if (!a.stepped || !b.stepped) return !a.stepped && b.stepped;
  return a.time < b.time || (a.time == b.time && a.id < b.id);
}

StepPoint last_step(const Kernel& k) { return k.steps() ? StepPoint{true, k.now(), k.last_global()} : StepPoint{}; }

/// Hang watchdog of one kernel: no progress (ChipSet::progress) for `limit` tile cycles. It looks
/// every 64 steps (a few tile cycles): a hang is still seen within the limit plus those, at a
/// fraction of the per-step cost.
class Watchdog {
 public:
  explicit Watchdog(std::uint64_t limit) : m_limit(limit) {}
  /// Counts a step; true every 64th.
  bool due() { return (++m_steps & 63) == 0; }
  std::uint64_t steps() const { return m_steps; }
  /// Looks at the progress so far; true once it has stood still for longer than the limit.
  bool hung(std::uint64_t progress, std::uint64_t cycles) {
    if (progress != m_progress) {
      m_progress = progress;
      m_last_progress = cycles;
      return false;
    }
    return cycles - m_last_progress > m_limit;
  }

 private:
  std::uint64_t m_limit;
  std::uint64_t m_steps = 0;
  std::uint64_t m_progress = 0;
  std::uint64_t m_last_progress = 0;
};

/// Runs the model shadow in a kernel of its own, on a second thread or on the caller's, to the
/// end the one kernel holding both sets would give it. That kernel stops after the step that
/// leaves both sets finished, so the set that finishes first keeps stepping (HBM refresh and so
/// on) until then; a run that fails stops after the design's last step. The shadow shares
/// nothing with the design under test (own memories, own fabric; the correlation compares logs
/// afterwards), so its steps do not depend on how the two kernels interleave, only where it
/// stops does. On the second thread the shadow runs only steps before the design's time, so it
/// never passes an end the design has yet to reach.
class ShadowRun {
 public:
  struct Outcome {
    StepPoint last;         ///< The shadow's last step.
    bool hung = false;      ///< Its watchdog fired, after the design had finished.
    bool interrupted = false;  ///< The stop flag was set while it ran on alone, after the design had finished.
  };

  ShadowRun(ChipSet& shadow, Kernel::ComponentId base, std::uint64_t watchdog_cycles, Time chunk, bool threaded,
            const std::atomic<bool>* stop)
      : m_set(shadow), m_watchdog(watchdog_cycles), m_chunk(chunk), m_threaded(threaded), m_stop(stop) {
    m_set.add_to(m_kernel, base);
    if (m_threaded) m_thread = std::thread([this] { guarded_work(); });
  }
  ShadowRun(const ShadowRun&) = delete;
  ShadowRun& operator=(const ShadowRun&) = delete;
  /// Stops the thread if the design side left early (an exception) and joins it.
  ~ShadowRun() {
    if (!m_thread.joinable()) return;
    {
      std::lock_guard lock(m_mutex);
      m_abort.store(true);
    }
    m_wake.notify_all();
    m_thread.join();
  }

  /// The design under test has run every step before `now` (call after each of its steps).
  /// Only a store: the shadow's thread looks for it when it wakes (work()), so the design's
  /// thread, which sets the wall time, never makes a wake-up system call while it runs.
  void dut_at(Time now) {
    if (m_threaded) m_dut_time.store(now, std::memory_order_release);
  }
  /// The shadow's thread stopped on an exception: the design side may stop too; end() rethrows it.
  bool failed() const { return m_failed.load(std::memory_order_relaxed); }

  /// The design under test stopped after step `last` (`finished` or not). Runs the shadow to the
  /// same place and, if the design finished and the shadow has not, on until the shadow finishes,
  /// hangs or runs out of events. Rethrows an exception of the shadow's run.
  Outcome end(StepPoint last, bool finished) {
    {
      std::lock_guard lock(m_mutex);
      m_dut_end = last;
      m_dut_finished = finished;
      m_ended = true;
    }
    m_wake.notify_all();
    if (m_threaded)
      m_thread.join();
    else
      guarded_work();
    if (m_error) std::rethrow_exception(m_error);
    return m_outcome;
  }

 private:
  void guarded_work() {
    try {
      work();
    } catch (...) {
      m_error = std::current_exception();
      m_failed.store(true);
    }
  }

  // After every step, as the one kernel does after every step of either set.
  bool bounded_done() {
    m_set.pump(m_kernel.now());
    return m_abort.load(std::memory_order_relaxed);
  }

  void work() {
    const auto done = [this] { return bounded_done(); };
    // Follow the design: every step before its time, in pieces of m_chunk.
    for (;;) {
      std::unique_lock lock(m_mutex);
      if (m_abort) return;
      if (m_ended) break;
      const Time t = m_dut_time.load();
      if (t > m_ran_to) {
        lock.unlock();
        m_ran_to = t;
        m_kernel.set_end(t - 1, std::numeric_limits<Kernel::ComponentId>::max());
        m_kernel.run(done);
        if (m_abort.load()) return;
        lock.lock();
      }
      // Sleep until the design should be a piece further on at its pace so far, then look
      // again; end() and the destructor wake it at once.
      const Time want = m_ran_to + m_chunk;
      m_wake.wait_for(lock, pace_until(want), [&] { return m_abort.load() || m_ended || m_dut_time.load() >= want; });
    }
    // To the design's last step, inclusive.
    if (m_dut_end.stepped) {
      m_kernel.set_end(m_dut_end.time, m_dut_end.id);
      m_kernel.run(done);
    } else {
      bounded_done();  // no step: the state at the start, as the one kernel looks at it
    }
    m_outcome.last = last_step(m_kernel);
    // A finished set stays finished: finished now is finished at or before the design's end.
    if (!m_dut_finished || m_set.finished()) return;
    // The design finished first: the shadow alone, until it finishes too.
    m_kernel.set_end(kNever, std::numeric_limits<Kernel::ComponentId>::max());
    m_kernel.run([this] {
      m_set.pump(m_kernel.now());
      if (m_set.finished()) return true;
      if (m_abort.load(std::memory_order_relaxed)) return true;
      if (!m_watchdog.due()) return false;
      m_outcome.hung = m_watchdog.hung(m_set.progress(), m_set.max_tile_cycles());
      if (!m_outcome.hung && m_stop && (m_watchdog.steps() & 0xfff) == 0 && m_stop->load(std::memory_order_relaxed))
        m_outcome.interrupted = true;
      return m_outcome.hung || m_outcome.interrupted;
    });
    m_outcome.last = last_step(m_kernel);
  }

  /// How long the design should take from its time now to `want`, at its pace since the start
  /// (bounded: a first look soon, and none rarer than every 20 ms).
  std::chrono::microseconds pace_until(Time want) const {
    const Time now = m_dut_time.load(std::memory_order_acquire);
    const auto spent = std::chrono::steady_clock::now() - m_start;
    const double us_per_ps =
        now ? std::chrono::duration<double, std::micro>(spent).count() / static_cast<double>(now) : 0.0;
    const double us = want > now ? static_cast<double>(want - now) * us_per_ps : 0.0;
    return std::chrono::microseconds(static_cast<std::int64_t>(std::clamp(us, 20.0, 20'000.0)));
  }

  ChipSet& m_set;
  Kernel m_kernel;
  Watchdog m_watchdog;
  const std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  Time m_chunk;
  bool m_threaded;
  const std::atomic<bool>* m_stop;
  std::thread m_thread;
  // Shared with the design's thread: its time (every step) and, under m_mutex, its end.
  std::atomic<Time> m_dut_time{0};
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::atomic<bool> m_abort{false};  // set under m_mutex
  bool m_ended = false;            // under m_mutex
  StepPoint m_dut_end;             // under m_mutex
  bool m_dut_finished = false;     // under m_mutex
  std::atomic<bool> m_failed{false};
  // The shadow's own.
  Time m_ran_to = 0;
  Outcome m_outcome;
  std::exception_ptr m_error;
};

}  // namespace

SystemRunResult run_system(const SystemRunOptions& opts, const Workload& work) {
  const auto wall_start = std::chrono::steady_clock::now();
  try {
    return run_once(opts, work);
  } catch (const SplitStopped& e) {
    // Each client's watchdog sees only its own steps, so a split run has no stop point in
    // common with one process. The whole run in this process is the reference; every client
    // computes it alike (docs/transport.md). Only chip 0's client writes its waveform.
    SystemRunOptions whole = opts;
    whole.chips.clear();
    whole.make_port = nullptr;
    whole.make_memory = nullptr;
    whole.make_fabric = nullptr;
    if (std::find(opts.chips.begin(), opts.chips.end(), 0u) == opts.chips.end()) whole.waveform.clear();
    const auto rerun_start = std::chrono::steady_clock::now();
    SystemRunResult r = run_once(whole, work);
    r.split_stopped = e.what();
    r.wall_seconds += std::chrono::duration<double>(rerun_start - wall_start).count();  // and the split part
    return r;
  }
}

namespace {

SystemRunResult run_once(const SystemRunOptions& opts, const Workload& work) {
  const auto wall_start = std::chrono::steady_clock::now();
  const SystemConfig& cfg = opts.system;
  validate(cfg);
  const TileGeometry geo = system_geometry(cfg);
  if (work.images.size() != cfg.chips || work.programs.size() != cfg.chips || work.regions.size() != cfg.chips)
    throw std::invalid_argument("workload '" + work.description + "' is for " + std::to_string(work.images.size()) +
                                " chips, the system has " + std::to_string(cfg.chips));
  for (const auto& progs : work.programs)
    if (progs.size() != cfg.tiles_per_chip)
      throw std::invalid_argument("workload '" + work.description + "' has " + std::to_string(progs.size()) +
                                  " programs per chip, the system " + std::to_string(cfg.tiles_per_chip) + " tiles");
  const ResultRegion* const fault = fault_region(opts, work);
  const std::vector<SparseMemory> initial = initial_images(work, geo);
  const std::shared_ptr<const ReferenceResult> reference =
      work.reference ? work.reference : std::make_shared<const ReferenceResult>(run_reference(work, geo));
  const std::vector<SparseMemory>& expected = reference->images;

  SystemRunResult result;
  result.undefined_reads = reference->undefined;
  result.workload = work.description;
  const bool split = !opts.chips.empty() && opts.chips.size() < cfg.chips;
  if (split && !opts.make_port) throw std::invalid_argument("a split run needs a link to the server (make_port)");

  ChipSetOptions dut_opts;
  dut_opts.prefix = "dut";
  std::optional<hbm::MemoryConfig> hbm_preset;  // parsed once for both chip sets
  if (cfg.memory == "hbm" && (!opts.make_memory || cfg.compare_model)) {
    hbm_preset = hbm::load_memory_config(cfg.hbm_config);
    dut_opts.hbm_preset = &*hbm_preset;
  }
  dut_opts.seed = opts.seed;
  dut_opts.waveform = opts.waveform;
  dut_opts.waveform_from_cycle = opts.waveform_from_cycle;
  dut_opts.waveform_to_cycle = opts.waveform_to_cycle;
  dut_opts.make_memory = opts.make_memory;
  dut_opts.make_fabric = opts.make_fabric;
  dut_opts.record_hbm_commands = !opts.trace.empty();
  dut_opts.mutant = opts.mutant;
  // The shadow answers from the design's memory calls while they agree (cosim/memory_replay.h);
  // not in a split run, whose shadow shares the design's kernel and simulates every chip.
  const bool replay = opts.shadow_memory == SystemRunOptions::ShadowMemory::kReplay ||
                      (opts.shadow_memory == SystemRunOptions::ShadowMemory::kAuto && !opts.shadow_thread);
  dut_opts.record_memory_calls = cfg.compare_model && !split && !opts.make_memory && replay;
  transport::ChipPort* port = nullptr;
  if (split) {
    dut_opts.chips = opts.chips;
    dut_opts.make_fabric = [&]() -> std::unique_ptr<Fabric> {
      auto p = opts.make_port();
      port = p.get();
      return p;
    };
  }
  ChipSet dut(cfg, geo, dut_opts);
  std::unique_ptr<ChipSet> shadow;
  if (cfg.compare_model) {
    ChipSetOptions s = dut_opts;
    s.prefix = "model";
    s.all_model = true;
    s.check_memory_timing = false;
    s.record_memory_calls = false;
    if (dut_opts.record_memory_calls)
      for (std::uint32_t c = 0; c < cfg.chips; ++c) {
        s.replay_memory.push_back(dut.memory_calls(c));
        s.replay_request_logs.emplace_back();
        for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t)
          s.replay_request_logs.back().push_back(&dut.memory_log(c, t));
      }
    s.waveform.clear();
    s.make_memory = nullptr;
    s.make_fabric = nullptr;
    s.record_hbm_commands = false;
    s.mutant.clear();  // the shadow is the reference: never mutated
    s.chips.clear();   // the whole system, in every process of a split run
    shadow = std::make_unique<ChipSet>(cfg, geo, s);
  }

  std::size_t total_instructions = 0;
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    if (dut.local(c)) dut.load_image(c, initial[c]);
    if (shadow) shadow->load_image(c, initial[c]);
    for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) {
      total_instructions += work.programs[c][t].size();
      if (dut.local(c)) dut.load_program(c, t, work.programs[c][t]);
      if (shadow) shadow->load_program(c, t, work.programs[c][t]);
    }
  }
  result.instructions = total_instructions;

  // A split run keeps both sets in one kernel (its end is agreed in the global step order);
  // otherwise the shadow runs in a kernel of its own, beside the design's.
  ChipSet* joint = port ? shadow.get() : nullptr;
  Kernel kernel;
  dut.add_to(kernel);
  if (joint) joint->add_to(kernel, dut.components());
  if (port) port->set_next_local([&dut] { return dut.next_event_time(); });
  std::optional<ShadowRun> shadow_run;
  if (shadow && !joint)
    shadow_run.emplace(*shadow, dut.components(), cfg.watchdog_cycles,
                       static_cast<Time>(kShadowChunkCycles * 1e6 / cfg.tile_mhz), opts.shadow_thread, opts.stop);

  // Watchdog: no progress anywhere (no instruction completing, no memory answer or ICI
  // row a program asked for) for watchdog_cycles tile cycles is a hang; the report says
  // what every unfinished tile was doing.
  Watchdog watchdog(cfg.watchdog_cycles);
  bool hung = false;
  bool stopped = false;  // at opts.stop_after_ps, before the run finished
  bool interrupted = false;  // at opts.stop
  auto next_report = wall_start + std::chrono::seconds(1);
  // An AXI protocol violation, or any tile pin behaviour the bridge cannot follow (a burst the
  // slave model does not serve, an instruction event no instruction explains), stops the run:
  // its record is the failure, as a checker's would be.
  std::optional<Mismatch> protocol_violation;
  std::string stopped_at;  // what protocol_violation is, for the run's error
  StepPoint last;  // the run's last step (both kernels')
  try {
    kernel.run([&] {
      if (kernel.now() > opts.stop_after_ps) {
        stopped = true;
        return true;
      }
      dut.pump(kernel.now());
      if (joint) joint->pump(kernel.now());
      if (shadow_run) {
        shadow_run->dut_at(kernel.now());
        if (shadow_run->failed()) return true;
      }
      const bool done = dut.finished() && (!joint || joint->finished());
      if (port) {
        // A split run ends where the whole system would: after the last step of every
        // process and of the fabric, which the server names (docs/transport.md).
        if (done) port->finished({kernel.now(), kernel.last_global()});
        if (port->end()) kernel.set_end(port->end()->first, port->end()->second);
      } else if (done) {
        return true;
      }
      if (!watchdog.due()) return false;
      const std::uint64_t progress = dut.progress() + (joint ? joint->progress() : 0);
      const std::uint64_t cycles = std::max(dut.max_tile_cycles(), joint ? joint->max_tile_cycles() : 0);
      if (watchdog.hung(progress, cycles)) {
        hung = true;
        return true;
      }
      // The stop flag as often as the progress: a relaxed load every 4096 steps.
      if (opts.stop && (watchdog.steps() & 0xfff) == 0 && opts.stop->load(std::memory_order_relaxed)) {
        interrupted = true;
        return true;
      }
      if (opts.on_progress && (watchdog.steps() & 0xfff) == 0 && std::chrono::steady_clock::now() >= next_report) {
        next_report += std::chrono::seconds(1);
        opts.on_progress(kernel.now() / 1000.0, dut.completed_instructions(), total_instructions);
      }
      return false;
    });
  } catch (const RtlPinError& e) {
    protocol_violation = e.mismatch();
    stopped_at = e.stopped_at();
  } catch (const transport::TransportError& e) {
    // Another client of the split run stopped early: so does this one.
    const std::string_view what = e.what();
    if (!port || what.find(kStoppedEarly) == std::string_view::npos) throw;
    // Stopped by a signal there: the run is over, for this client too, and not run again whole.
    if (what.find(kStoppedBySignal) != std::string_view::npos)
      throw SplitRunInterrupted("the split run stopped at " + std::to_string(kernel.now()) + " ps of this client: " +
                                std::string(what));
    throw SplitStopped(e.what());
  } catch (...) {
    // Whichever set fails first in the step order reports, as in one kernel: the shadow runs to
    // this step and throws its own failure if it meets one on the way.
    if (shadow_run) shadow_run->end(last_step(kernel), false);
    throw;
  }
  last = last_step(kernel);
  if (shadow_run) {
    const bool dut_done = !hung && !interrupted && !protocol_violation && dut.finished();
    const ShadowRun::Outcome o = shadow_run->end(last, dut_done);
    hung = hung || o.hung;
    interrupted = interrupted || o.interrupted;
    if (last < o.last) {
      // The shadow finished later: the design's components step on to the same place.
      kernel.set_end(o.last.time, o.last.id);
      kernel.run([&] {
        dut.pump(kernel.now());
        return false;
      });
      last = o.last;
    }
  }
  const Time end = port && port->end() ? port->end()->first : last.time;
  dut.finish(end);
  if (shadow) {
    shadow->finish(end);
    result.shadow_memory_replayed = dut_opts.record_memory_calls;
    for (std::uint32_t c = 0; c < cfg.chips; ++c)
      result.shadow_memory_replayed = result.shadow_memory_replayed && shadow->memory_replayed(c);
  }
  result.sim_time_ps = end;
  const bool finished = port ? port->end().has_value() : dut.finished() && (!shadow || shadow->finished());

  // This process's part of the results: one entry per chip it runs, each checker's
  // findings kept apart so that merging the parts of a split run orders them as one
  // process would.
  using json = nlohmann::json;
  const auto put = [](json& list, const std::vector<Mismatch>& ms) {
    for (const Mismatch& m : ms) list.push_back({m.time, m.where, m.id, m.field, m.expected, m.actual});
  };
  json part;
  part["ici_bytes"] = dut.ici_bytes();
  part["error"] = "";
  part["error_mismatches"] = json::array();
  part["chips"] = json::array();
  if (protocol_violation) {
    part["error"] = "stopped at " + stopped_at + ": " + to_string(*protocol_violation);
    put(part["error_mismatches"], {*protocol_violation});
  } else if (interrupted) {
    // A split run's client counts its own chips' instructions.
    std::size_t instructions = 0;
    for (std::uint32_t c = 0; c < cfg.chips; ++c)
      for (std::uint32_t t = 0; dut.local(c) && t < cfg.tiles_per_chip; ++t) instructions += work.programs[c][t].size();
    std::string state = dut.state();
    if (shadow && !shadow->finished()) state += (state.empty() ? "" : "; ") + shadow->state();
    // "stopped by a signal (SIGTERM)": still kStoppedBySignal where a split run relays it.
    const std::string cause = opts.stop_cause ? opts.stop_cause() : std::string("a signal");
    part["error"] = "stopped by " + cause + " at " + std::to_string(end) + " ps, before the run finished: " +
                    std::to_string(dut.completed_instructions()) + " of " + std::to_string(instructions) +
                    " instructions completed" + (state.empty() ? "" : ": " + state);
  } else if (stopped && !hung) {
    part["error"] = "stopped at " + std::to_string(opts.stop_after_ps) + " ps as asked, before the run finished: " +
                    dut.state();
  } else if (hung || !finished) {
    std::string state = dut.state();
    if (shadow && !shadow->finished()) state += (state.empty() ? "" : "; ") + shadow->state();
    part["error"] = "no progress for " + std::to_string(cfg.watchdog_cycles) + " cycles: " + state;
  }
  // A tile that raised its error output fails the run. Each chip reports its first such tile;
  // merge_parts takes the first chip's, as one process checking every chip does. The checks
  // below skip what a failed run does not compare; in a split run, a client that learns of
  // another's failure only from the parts computes them, and merge_parts drops them.
  bool failed = !part["error"].get<std::string>().empty();
  std::vector<std::string> hardware_error(cfg.chips);
  for (std::uint32_t c = 0; c < cfg.chips && !failed; ++c)
    for (std::uint32_t t = 0; dut.local(c) && t < cfg.tiles_per_chip && hardware_error[c].empty(); ++t)
      if (const auto* rtl = dynamic_cast<const RtlTile*>(&dut.tile(c, t)); rtl && rtl->hardware_error())
        hardware_error[c] = rtl->name() + " raised its error output";
  for (const std::string& e : hardware_error) failed = failed || !e.empty();
  const TimingTolerance tol{cfg.tolerance_cycles, cfg.tolerance_percent};
  for (std::uint32_t c = 0; c < cfg.chips; ++c) {
    if (!dut.local(c)) continue;
    json chip;
    chip["chip"] = c;
    chip["hardware_error"] = hardware_error[c];
    chip["read"] = dut.bytes_read(c);
    chip["written"] = dut.bytes_written(c);
    chip["hbm_beyond_capacity"] = dut.hbm_requests_beyond_capacity(c);
    chip["tiles"] = json::array();
    for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) {
      const Tile& tile = dut.tile(c, t);
      json perf = json::array();
      for (const auto& [n, v] : tile.perf_counters()) perf.push_back({n, v});
      chip["tiles"].push_back({{"name", tile.name()},
                               {"kind", dut.kind(t) == TileKind::kRtl ? "rtl" : "model"},
                               {"cycles", tile.cycles()},
                               {"model_cycles", shadow ? shadow->tile(c, t).cycles() : 0},
                               {"perf", perf}});
    }
    // Where did the RTL of a hung run leave the model's path? The traffic both
    // sides produced (the common prefix of each channel) is compared; counts
    // and instruction times of a cut-short run are not.
    json& hang = chip["hang"] = {{"count", 0}, {"list", json::array()}};
    if (!protocol_violation && (hung || !finished) && shadow)
      for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) {
        TimingCorrelator corr(tol, tol);
        const ClockDomain& clk = dut.tile(c, t).clock();
        corr.compare_memory(dut.memory_log(c, t), shadow->memory_log(c, t), clk, TrafficScope::kCommonPrefix);
        corr.compare_ici(dut.ici_sends(c, t), shadow->ici_sends(c, t), clk, ici_channel(c, t),
                         TrafficScope::kCommonPrefix);
        hang["count"] = hang["count"].get<std::uint64_t>() + corr.mismatch_count();
        put(hang["list"], corr.mismatches());
      }
    // The HBM models' own JEDEC timing checkers (at most 100 kept per chip).
    json& hbm = chip["hbm"] = {{"count", 0}, {"list", json::array()}};
    std::uint64_t n = 0;
    for (const std::string& v : dut.hbm_violations(c)) {
      if (n++ < 100) put(hbm["list"], {{end, "hbm timing chip" + std::to_string(c), "", "JEDEC rule", "no violation", v}});
    }
    hbm["count"] = n;
    // Handshake rules on every RTL tile's channels.
    json& hs = chip["handshake"] = {{"checked", 0}, {"count", 0}, {"list", json::array()}};
    for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t)
      if (const auto* rtl = dynamic_cast<const RtlTile*>(&dut.tile(c, t))) {
        const HandshakeChecker& h = rtl->handshake();
        std::uint64_t checked = 0;
        for (std::size_t ch = 0; ch < h.channels(); ++ch) checked += h.handshakes(ch);
        hs["checked"] = hs["checked"].get<std::uint64_t>() + checked;
        hs["count"] = hs["count"].get<std::uint64_t>() + h.mismatch_count();
        put(hs["list"], h.mismatches());
      }
    // Timing: every DUT tile against its shadow, per instruction and per memory request.
    json& tm = chip["timing"] = {{"instructions", 0}, {"abs_sum", 0}, {"max_abs", 0}, {"histogram", json::array()},
                                 {"memory_requests", 0}, {"count", 0}, {"list", json::array()}};
    if (shadow && !failed)
      for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) {
        TimingCorrelator corr(tol, tol);
        const Tile& d = dut.tile(c, t);
        corr.compare_instructions(work.programs[c][t], d.instr_events(), shadow->tile(c, t).instr_events(), d.clock());
        corr.compare_memory(dut.memory_log(c, t), shadow->memory_log(c, t), d.clock());
        corr.compare_ici(dut.ici_sends(c, t), shadow->ici_sends(c, t), d.clock(), ici_channel(c, t));
        corr.compare_cycles(d.cycles(), shadow->tile(c, t).cycles(), d.clock(),
                            "timing tile chip" + std::to_string(c) + ".tile" + std::to_string(t));
        auto abs_sum = tm["abs_sum"].get<std::uint64_t>();
        auto max_abs = tm["max_abs"].get<std::int64_t>();
        for (const InstrTiming& it : corr.instructions()) {
          const std::int64_t e = it.duration_error();
          abs_sum += static_cast<std::uint64_t>(e < 0 ? -e : e);
          max_abs = std::max(max_abs, e < 0 ? -e : e);
          tm["histogram"].push_back(e);
        }
        tm["abs_sum"] = abs_sum;
        tm["max_abs"] = max_abs;
        tm["instructions"] = tm["instructions"].get<std::uint64_t>() + corr.instructions().size();
        tm["memory_requests"] = tm["memory_requests"].get<std::uint64_t>() + dut.memory_log(c, t).size();
        tm["count"] = tm["count"].get<std::uint64_t>() + corr.mismatch_count();
        put(tm["list"], corr.mismatches());
      }
    // Data: the results the RTL left in memory against the functional reference, then the rest
    // of the memory against the reference's image.
    json& data = chip["data"] = {{"checked", 0}, {"count", 0}, {"list", json::array()}, {"memory_bytes", 0}};
    if (!failed) {
      DataScoreboard scoreboard;
      // Each mismatch at the last write the RTL tiles made to its address (the end when none
      // did): the failure waveform then shows the write that left it. The model tiles' writes
      // carry no data (zeros in the design's memory), so their bytes are not compared.
      WriteIndex rtl_writes;
      SparseMemory skip;  // nonzero: a byte the memory check leaves out
      const std::vector<std::uint8_t> ones(4096, 1);
      const auto skip_bytes = [&](std::uint64_t addr, std::uint64_t bytes) {
        for (std::uint64_t at = addr; at < addr + bytes;) {
          const std::uint64_t n = std::min<std::uint64_t>(addr + bytes - at, ones.size());
          skip.write(at, std::span<const std::uint8_t>(ones.data(), n));
          at += n;
        }
      };
      bool any_rtl = false;
      for (std::uint32_t t = 0; t < cfg.tiles_per_chip; ++t) {
        if (dut.kind(t) == TileKind::kRtl) {
          any_rtl = true;
          rtl_writes.add(dut.memory_log(c, t));
        } else {
          for (const MemoryLogEntry& e : dut.memory_log(c, t))
            if (e.write) skip_bytes(e.addr, e.bytes);
        }
      }
      const auto time_of = [&](std::uint64_t addr) {
        const WriteIndex::Write* w = rtl_writes.last_covering(addr);
        return w ? w->issue : end;
      };
      SparseMemory actual;
      for (const ResultRegion& r : work.regions[c]) {
        std::vector<std::uint8_t> bytes(r.layout.bytes());
        dut.memory(c).backdoor_read(r.layout.base, bytes);
        actual.write(r.layout.base, bytes);
      }
      if (fault && c == 0) {
        const MatrixLayout& l = fault->layout;
        const std::uint64_t idx = *opts.inject_fault;
        const std::uint64_t addr =
            l.addr(static_cast<std::uint32_t>(idx / l.cols), static_cast<std::uint32_t>(idx % l.cols));
        const std::uint8_t b = actual.read(addr, 1)[0] ^ 1;
        actual.write(addr, std::span<const std::uint8_t>(&b, 1));
      }
      for (const ResultRegion& r : work.regions[c]) {
        const MatrixLayout& l = r.layout;
        if (dut.kind(r.producer_tile) != TileKind::kRtl) {
          skip_bytes(l.base, l.bytes());  // a model tile's: timing only
          continue;
        }
        // The rows this chip holds: [first, end) of the region.
        const std::uint32_t first = std::min(r.first_row, l.rows);
        const std::uint32_t last = std::min(r.end_row, l.rows);
        const std::size_t cols = l.cols;
        const auto slice = [&](std::vector<std::uint32_t> v) {
          return std::vector<std::uint32_t>(v.begin() + first * cols, v.begin() + last * cols);
        };
        scoreboard.check_matrix(r.name, slice(read_region(r, actual)), slice(read_region(r, expected[c])), last - first,
                                l.cols, r.dtype, l.elem_bytes,
                                [&](std::uint32_t i, std::uint32_t j) { return l.addr(first + i, j); }, time_of);
        // Its elements are checked: the memory check below compares what lies around them.
        for (std::uint32_t b = 0; b < l.blocks(); ++b) {
          const std::uint64_t row_bytes =
              std::uint64_t{std::min(l.block_cols, l.cols - b * l.block_cols)} * l.elem_bytes;
          for (std::uint32_t i = first; i < last; ++i) skip_bytes(l.row_addr(b, i), row_bytes);
        }
      }
      // Every page the reference's image holds (the initial image, what the programs wrote) and
      // every page an RTL tile wrote: padding written with its strobe low, bytes written that
      // the reference leaves alone, writes into pages the reference never touches. Not when
      // every tile is a model tile: its memory then keeps no data (ChipSet).
      std::uint64_t memory_bytes = 0;
      if (any_rtl) {
        std::vector<std::uint64_t> pages = rtl_writes.pages();
        expected[c].for_each_page([&](std::uint64_t base, std::span<const std::uint8_t>) { pages.push_back(base); });
        std::sort(pages.begin(), pages.end());
        pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
        const std::uint64_t before = scoreboard.bytes_checked();
        scoreboard.check_memory(
            "chip" + std::to_string(c) + ".memory", expected[c], skip, pages,
            [&](std::uint64_t a, std::span<std::uint8_t> out) { dut.memory(c).backdoor_read(a, out); }, rtl_writes,
            time_of);
        memory_bytes = scoreboard.bytes_checked() - before;
      }
      data["memory_bytes"] = memory_bytes;
      // A program's results are memory, not elements: its 4-byte words compared count as elements.
      data["checked"] = scoreboard.elements_checked() + (work.check_whole_image ? memory_bytes / 4 : 0);
      data["count"] = scoreboard.mismatch_count();
      put(data["list"], scoreboard.mismatches());
    }
    part["chips"].push_back(std::move(chip));
  }

  std::vector<json> parts;
  if (port && !port->end()) {
    // Stopped before the common end: the other processes cannot finish; say why, to them and here.
    std::string chips;
    for (std::uint32_t c : opts.chips) chips += (chips.empty() ? "" : ",") + std::to_string(c);
    const std::string why = "chip(s) " + chips + " " + std::string(kStoppedEarly) + ": " +
                            (failed ? part["error"].get<std::string>() : "the kernel ran out of events");
    port->give_up(why);
    // A signal stops the split run, not the run: no re-run of the whole, the results of this
    // client's chips where they stopped.
    if (!interrupted) throw SplitStopped(why);
    parts.push_back(std::move(part));
    merge_parts(parts, cfg, work, shadow != nullptr, result, /*every_chip=*/false);
  } else if (port) {
    for (const std::string& p : port->exchange_reports(json_text(part))) parts.push_back(parse_part(p));
    merge_parts(parts, cfg, work, shadow != nullptr, result);
  } else {
    parts.push_back(std::move(part));
    merge_parts(parts, cfg, work, shadow != nullptr, result);
  }
  result.interrupted = interrupted;
  // The run's time, not the timeline's writing after it (20 s for a 48 MB one).
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  // The timeline once the results are whole: a trace that cannot be written (a full disk)
  // loses that file, not the verdict of a finished run, which the caller reports first.
  if (!opts.trace.empty()) {
    // A signal while the timeline is written cuts it (a long one is not waited for); the signal
    // that stopped the run has had its effect, and the timeline up to the stop is written whole.
    const std::atomic<bool>* cut_by = opts.stop && !opts.stop->load() ? opts.stop : nullptr;
    try {
      write_trace(opts.trace, cfg, work, dut, shadow.get(), cut_by);
    } catch (const std::exception& e) {
      result.trace_error = e.what();
      // Cut short by a signal: the part written is no timeline (a full disk's, the file the
      // user named, say /dev/full, is left alone).
      if (cut_by && cut_by->load(std::memory_order_relaxed)) {
        std::error_code ec;
        std::filesystem::remove(opts.trace, ec);
        result.trace_error += "; the partial file is removed";
      }
    }
  }
  return result;
}

}  // namespace

}  // namespace mxc
