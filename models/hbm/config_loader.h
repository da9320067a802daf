#pragma once
// Reads a memory-system YAML file (device preset, stacks, controller policy).
// Errors name the file, the line and the field, as every config loader's
// (models/core/yaml_reader.h), e.g. "configs/hbm/x.yaml:12: field
// 'controller.read_queue': expected a positive integer, got '-3'".
#include <optional>
#include <string>

#include "models/hbm/hbm_config.h"

namespace mxc::hbm {

/// Loads and validates `path`; throws std::invalid_argument on any problem.
/// `refresh` overrides the controller's refresh mode (a command line's), so
/// the refresh timings are checked for the mode the run will use.
MemoryConfig load_memory_config(const std::string& path, std::optional<RefreshMode> refresh = std::nullopt);
/// Same, from text; `file` is only used in messages and to resolve a
/// `device: other.yaml` reference (relative to its directory).
MemoryConfig parse_memory_config(const std::string& text, const std::string& file,
                                 std::optional<RefreshMode> refresh = std::nullopt);
/// Checks cross-field rules (watermarks, power-of-two counts, ...); throws
/// std::invalid_argument. Called by the loaders and by HbmModel.
void validate(const MemoryConfig& cfg);

}  // namespace mxc::hbm
