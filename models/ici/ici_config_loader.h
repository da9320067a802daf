#pragma once
// Reads an IciConfig from YAML. Errors name the file, line and field, e.g.
//   configs/ici/x.yaml:7: field 'ici.link.bandwidth_gbps': expected a number
// Unknown keys are errors too, so a typo never silently keeps a default.
#include <string>

#include "models/ici/ici_config.h"

namespace mxc::ici {

/// Parses `path`; throws std::runtime_error with file:line: field: reason.
IciConfig load_ici_config(const std::string& path);
/// Parses YAML text; `origin` stands for the file name in messages.
IciConfig parse_ici_config(const std::string& text, const std::string& origin);

}  // namespace mxc::ici
