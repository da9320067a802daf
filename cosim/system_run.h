#pragma once
// One co-simulation of a system: the design under test (RTL and/or model
// tiles as configured) and, when the config asks, an all-model shadow of the
// same system running the same programs on identical memories and fabric;
// then every checker's verdict: data against the functional reference,
// timing against the shadow, and the run's own failures (hang, hardware
// error).
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bridge/checker.h"
#include "cosim/chip_set.h"
#include "cosim/system_config.h"
#include "cosim/workload.h"

namespace mxc {

namespace transport {
class ChipPort;  // bridge/transport/chip_port.h
}

struct SystemRunOptions {
  SystemConfig system = default_system_config();
  WorkloadSpec workload;
  std::uint64_t seed = 1;
  std::string waveform;                  ///< FST of RTL tile 0 of chip 0.
  std::uint64_t waveform_from_cycle = 0;
  std::uint64_t waveform_to_cycle = ~0ull;
  /// Stop the design's kernel once its time passes this (ps): a re-run that only dumps a
  /// waveform up to a cycle need not simulate past it. Its results are then of a cut-short run.
  Time stop_after_ps = ~Time{0};
  std::optional<std::uint64_t> inject_fault;  ///< Flip bit 0 of this result element before checking.
  std::string trace;                     ///< Timeline (Chrome trace-event JSON, .gz = gzip); empty = none.
  std::string mutant;                    ///< The DUT's RTL tiles are this mutant (docs/mutants.md); empty = none.
  /// Replace the DUT's memories / fabric (the shadow always uses local models).
  MemoryMaker make_memory;
  FabricMaker make_fabric;
  /// Split run (docs/transport.md): this process runs only these chips' tiles (empty = all);
  /// make_port links it to the server that runs the fabric for every client. Each client
  /// runs the whole shadow, and the clients swap their parts of the results at the end, so
  /// every one returns the whole result.
  std::vector<std::uint32_t> chips;
  std::function<std::unique_ptr<transport::ChipPort>()> make_port;
  /// Run the model shadow on a second thread, concurrently with the design under test (each in
  /// a kernel of its own; docs/architecture.md). Results are the same either way; false keeps
  /// the whole run on the calling thread. A split run always runs both in one kernel.
  bool shadow_thread = true;
  /// How the shadow's memories work out their answers (results are the same either way):
  /// kReplay from the design's memory calls while those agree (cosim/memory_replay.h), which
  /// saves CPU time; kSimulate as a second copy of the memory; kAuto replays when the shadow
  /// runs on the calling thread and simulates when it has a thread of its own, where the
  /// simulation runs on the other core and the recording would lengthen the design's thread.
  enum class ShadowMemory { kAuto, kReplay, kSimulate };
  ShadowMemory shadow_memory = ShadowMemory::kAuto;
  /// Called about once a second of wall time with (simulated ns, instructions completed, total).
  std::function<void(double, std::size_t, std::size_t)> on_progress;
  /// Once set (by a signal handler: `mxcosim run` on SIGINT, SIGTERM, SIGHUP), the run stops
  /// where it is, as a hang stops it: the results of a run cut short, SystemRunResult::error
  /// saying so and `interrupted` set. Looked at about as often as the progress (every 4096
  /// steps), so a run that is never stopped costs nothing more. nullptr: never.
  const std::atomic<bool>* stop = nullptr;
  /// What set `stop`, for the error ("a signal (SIGTERM)"); unset: "a signal".
  std::function<std::string()> stop_cause;
};

struct TileReport {
  std::string name;
  TileKind kind = TileKind::kRtl;
  std::uint64_t cycles = 0;
  std::uint64_t model_cycles = 0;        ///< Its shadow's cycles (0 without a shadow).
  std::size_t instructions = 0;
  std::vector<std::pair<std::string, std::uint64_t>> perf;
};

/// Timing correlation of the DUT against the performance model.
struct TimingSummary {
  bool compared = false;
  std::uint64_t instructions = 0;             ///< Compared, over all tiles.
  std::uint64_t mismatches = 0;               ///< Timing checker mismatches.
  double mean_abs_instr_error = 0;            ///< Cycles, per instruction duration.
  std::int64_t max_abs_instr_error = 0;
  std::map<std::int64_t, std::uint64_t> error_histogram;  ///< Duration error -> instructions.
  std::uint64_t memory_requests = 0;          ///< Compared requests (RTL side).
};

struct SystemRunResult {
  bool passed = false;
  std::string error;                      ///< The run itself failed (hang, hardware error).
  std::string workload;
  std::uint64_t rtl_cycles = 0;           ///< Longest DUT tile, in tile cycles.
  std::optional<std::uint64_t> model_cycles;  ///< Longest shadow tile.
  std::uint64_t instructions = 0;
  Time sim_time_ps = 0;
  double wall_seconds = 0;  ///< The run's, without writing the --trace timeline after it.
  /// Result elements compared; a program's, whose results are its memory: the 4-byte words of
  /// memory_bytes_checked (the same bytes, counted in words).
  std::uint64_t elements_checked = 0;
  /// Memory bytes compared with the reference's image (every page the image holds or an RTL
  /// tile wrote, less the model tiles' writes and a GEMM's or an MLP's result elements).
  std::uint64_t memory_bytes_checked = 0;
  std::uint64_t mismatch_count = 0;
  std::vector<Mismatch> mismatches;       ///< Every checker's, earliest first.
  std::uint64_t hbm_read_bytes = 0, hbm_write_bytes = 0, ici_bytes = 0;
  /// Memory requests past the HBM's capacity, which alias lower addresses
  /// in its banks (their data is kept at the address given).
  std::uint64_t hbm_requests_beyond_capacity = 0;
  double utilization = 0;                 ///< Array-active cycles / each tile's own cycles, both summed over the tiles.
  double bandwidth_gbps = 0;              ///< Memory bytes / simulated time.
  std::vector<TileReport> tiles;
  TimingSummary timing;
  std::uint64_t handshakes = 0;           ///< Valid/ready handshakes checked on RTL tiles.
  /// A split run whose chips stopped before its end (a hang, a protocol violation), here or in
  /// another client: why. The results are then those of the whole run, re-run in this process.
  std::string split_stopped;
  /// The run stopped at SystemRunOptions::stop (error says where), in this process or, in a
  /// split run, in another client (which stops every client, none re-running the whole run).
  bool interrupted = false;
  /// Why the timeline (SystemRunOptions::trace) could not be written, empty when it was or
  /// none was asked for: the file is incomplete, the results stand.
  std::string trace_error;
  /// What the programs read before any instruction wrote it (FunctionalTile::undefined_reads,
  /// each prefixed "chipC.tileT: "): the RTL holds seeded random values there, the reference
  /// 0, so results built on it differ through no fault of the RTL.
  std::vector<std::string> undefined_reads;
  /// Every memory of the shadow answered from the design's log, none simulated (how the run
  /// was computed, not what it found: not in the results JSON).
  bool shadow_memory_replayed = false;
};

/// A split run that another client left because a signal stopped it (SystemRunOptions::stop
/// there): this client stops too, with no results, rather than run the whole system again as
/// after another client's hang.
struct SplitRunInterrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The result --inject-fault flips an element of: chip 0's first result an
/// RTL tile writes (model tiles' results are not checked); nullptr without
/// the option. Throws when there is none, or the element is not one chip
/// 0 holds: the fault would change nothing and the run would still pass.
const ResultRegion* fault_region(const SystemRunOptions& opts, const Workload& work);

/// Runs opts.workload (built by build_workload).
SystemRunResult run_system(const SystemRunOptions& opts);
/// opts.workload built for opts.system (validated, on its tiles' geometry),
/// what run_system(opts) runs: a caller that builds it first hears of a bad
/// config, array size, program or shape before anything else happens.
Workload build_run_workload(const SystemRunOptions& opts);
/// Runs a given workload (images, programs and result regions per chip).
SystemRunResult run_system(const SystemRunOptions& opts, const Workload& work);

}  // namespace mxc
