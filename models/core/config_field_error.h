#pragma once
// A field of a config that breaks a rule found after loading (a range, a rule
// between fields): the loader turns it into an error at the field's line
// (YamlReader::fail_at_field); a config built in code gets the message as it is.
#include <stdexcept>
#include <string>
#include <utility>

namespace mxc {

struct ConfigFieldError : std::invalid_argument {
  /// what() is "FILE: field 'FIELD': WHY", or without "FILE: " when `file` is empty.
  ConfigFieldError(const std::string& file, std::string f, std::string w)
      : std::invalid_argument((file.empty() ? "" : file + ": ") + "field '" + f + "': " + w),
        field(std::move(f)),
        why(std::move(w)) {}
  std::string field;  ///< Dotted, e.g. "system.checks.watchdog_cycles".
  std::string why;
};

}  // namespace mxc
