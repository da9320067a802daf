#pragma once
// The system a co-simulation builds: C chips of T tiles each, every chip with
// its own memory, all chips on one fabric; each tile verilated RTL or the
// performance model. Loaded from YAML (configs/*.yaml, docs/configs.md).
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/core/config_field_error.h"
#include "models/core/time.h"

namespace YAML {
class Node;
}

namespace mxc {

enum class TileKind { kRtl, kModel };

/// Chips of a system: an instruction names a chip in 8 bits (docs/isa.md, DST_CHIP).
inline constexpr std::uint32_t kMaxChips = 256;
/// Array rows and columns of a tile, at most.
inline constexpr std::uint32_t kMaxTileSide = 1024;

struct SystemConfig {
  std::string file = "<built-in>";     ///< Where it came from, for messages.
  std::uint32_t chips = 1;
  std::uint32_t tiles_per_chip = 1;
  std::uint32_t rows = 4, cols = 4;     ///< Array size of every tile.
  double tile_mhz = 1000.0;
  /// Kind of tile t of every chip (size tiles_per_chip).
  std::vector<TileKind> tile_kinds{TileKind::kRtl};

  std::string memory = "ideal";         ///< "ideal" or "hbm".
  Time ideal_latency_ps = 100'000;
  std::uint32_t ideal_outstanding = 64;
  std::string hbm_config;               ///< HBM preset YAML (memory: hbm), resolved path.
  std::string ici_config;               ///< Fabric YAML (chips > 1), resolved path.

  /// Run the performance model beside the DUT and correlate timing.
  bool compare_model = true;
  std::uint64_t tolerance_cycles = 0;   ///< Timing tolerance: max(cycles, percent of expected).
  double tolerance_percent = 0.0;
  double backpressure = 0.0;            ///< Random stall probability on every RTL tile channel.
  bool hbm_timing_check = true;         ///< Run the HBM model's independent JEDEC timing checker.
  std::uint64_t watchdog_cycles = 200'000;
  /// The file's YAML, so that a rule checked after loading names a field's line as the loader
  /// does (config_where); none for a system built in code.
  std::shared_ptr<const YAML::Node> source;
  /// The fields a command-line option set, by dotted name ("system.tile.rows"), and the option
  /// ("--rows"): a message about one names the option, the file's line being not where it came from.
  std::map<std::string, std::string> set_by_option;
};

/// Where `field` of `cfg` is given, for a message: the option when the command line set it
/// ("--rows"), else "FILE:LINE", the line of the field or of its nearest ancestor the file gives
/// (field_line, as YamlReader::fail_at_field), or "FILE" alone.
std::string config_where(const SystemConfig& cfg, const std::string& field);

/// The built-in default: one chip, one 4x4 RTL tile, ideal memory.
SystemConfig default_system_config();

/// Whether any tile of a chip is RTL (else the system is performance models only).
bool has_rtl_tile(const SystemConfig& cfg);

/// Throws std::invalid_argument "FILE:LINE: field 'system.x': reason".
SystemConfig load_system_config(const std::string& path);
SystemConfig parse_system_config(const std::string& text, const std::string& origin,
                                 const std::string& base_dir = ".");

/// Why `chips` chips do not fit a fabric of `fabric_chips` chips, `fabric` naming it (its file):
/// "8 chips do not fit the fabric of 4 chips in FABRIC: give at most 4 chips or a larger fabric";
/// empty when they fit. The loader and ChipSet both check it, with one wording.
std::string fabric_misfit(std::uint32_t chips, std::uint32_t fabric_chips, const std::string& fabric);
/// Throws std::invalid_argument naming system.checks.watchdog_cycles when a
/// row's way over the system's longest path through the idle fabric
/// (cfg.ici_config, read here) takes the watchdog's tile cycles or more: a
/// tile waiting for it would be stopped as hung, as the ideal memory's
/// latency rule of validate() guards against for memory. For `run`, after
/// its command-line overrides (tests provoke hangs with short watchdogs on
/// purpose, so run_system does not apply it).
void check_fabric_latency(const SystemConfig& cfg);

/// Checks ranges and combinations; throws ConfigFieldError (the field and the reason apart).
/// `overridable`: also the rules between fields the command line may
/// override (an ideal memory's latency against the watchdog), which a
/// file alone need not meet: run and serve check again after overriding.
void validate(const SystemConfig& cfg, bool overridable = true);

}  // namespace mxc
