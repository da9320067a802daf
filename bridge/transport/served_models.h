#pragma once
// What a server hosts: the memories of the chips and the fabric, described by
// the fields of the system config that shape them (the transport sits below
// cosim/, so it takes these rather than a SystemConfig). Both ends hash the
// same description; a different hash means different models, and the
// connection is refused.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "bridge/transport/frame.h"
#include "models/core/fabric.h"
#include "models/core/memory_target.h"
#include "models/core/time.h"

namespace mxc::transport {

struct ServedSystem {
  std::uint32_t chips = 1;
  std::uint32_t tiles_per_chip = 1;    ///< Fixes the global component ids of a split run.
  std::string memory = "ideal";        ///< "ideal" or "hbm".
  Time ideal_latency_ps = 100'000;
  std::uint32_t ideal_outstanding = 64;
  std::string hbm_config;              ///< HBM preset YAML path (memory: hbm).
  /// Run the HBM model's JEDEC timing checker (system.checks.hbm_timing_check), over the
  /// preset's check_timing, as a memory of the same system in one process does.
  bool hbm_timing_check = true;
  std::string ici_config;              ///< Fabric YAML path (chips > 1).
};

/// Which of its system's models a server hosts (`mxcosim serve --serve`). What it does not host,
/// every client simulates in its own process (docs/transport.md, "Serving a subset").
struct ServedParts {
  bool memories = true;  ///< One memory per chip, for the chips each client asks for.
  bool fabric = true;    ///< The fabric (systems of two or more chips; a split run needs it).
};
/// "all", "memories" or "fabric"; throws std::invalid_argument naming `option`.
ServedParts parse_served_parts(const std::string& text, const std::string& option);
/// "all", "memories", "fabric" (or "nothing").
std::string to_string(const ServedParts& parts);

/// FNV-1a 64 of the description, with the contents (not the paths) of the YAML files it names.
std::uint64_t config_hash(const ServedSystem& sys);
/// What config_hash covers, for a refusal to show (e.g. "1 chip x 1 tile,
/// ideal memory of 100000 ps and 64 requests in flight").
std::string describe(const ServedSystem& sys);

/// A memory whose timing the client can mirror exactly: every accepted request
/// completes exactly `latency_ps` after acceptance, in acceptance order, and a
/// request is accepted iff fewer than `capacity` are in flight (IdealMemory).
struct FixedLatency {
  Time latency_ps = 0;
  std::uint32_t capacity = 0;
};
/// The contract of the described memory, or nullopt when its timing depends on its state (HBM).
std::optional<FixedLatency> fixed_latency_contract(const ServedSystem& sys);

/// The real memory of chip `chip` (throws std::invalid_argument on a bad description).
std::unique_ptr<MemoryTarget> make_served_memory(const ServedSystem& sys, std::uint32_t chip, const std::string& name);
/// The least time from a packet's injection to any delivery it can cause or delay (a link's
/// latency): the lookahead of a split run's windows (docs/transport.md).
Time fabric_lookahead(const ServedSystem& sys);
/// The real fabric (chips > 1), or nullptr for a single chip.
std::unique_ptr<Fabric> make_served_fabric(const ServedSystem& sys);
/// A copy of `fabric` in its current state, delivering nowhere, or nullptr for a kind it cannot
/// copy. A split run's server runs it ahead to find the fabric's next delivery (docs/transport.md).
std::unique_ptr<Fabric> copy_fabric(const Fabric& fabric);
/// End-of-run bookkeeping a model needs (HBM refresh accounting and timing checks).
void finish_served_memory(MemoryTarget& mem, Time now);
/// finish_served_memory, and what an HBM model found, for the client to report as its own
/// (FINISH): a failure of the model at its end is in `error`, not thrown.
FinishMsg finish_and_report(MemoryTarget& mem, std::uint32_t chip, Time now);

}  // namespace mxc::transport
