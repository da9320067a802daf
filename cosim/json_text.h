#pragma once
// JSON as text for result files, reports and traces. A string that is not
// UTF-8 (a file name, a name from a config, a test's output) keeps its valid
// parts and has each ill-formed sequence replaced by U+FFFD: the strict
// default would throw after a run, and its results would be lost for one
// byte of a name.
#include <string>

#include <nlohmann/json.hpp>

namespace mxc {

/// `j` as text, `indent` as nlohmann::json::dump takes it (-1: one line).
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}
/// The same with the members in the order they were added (results.json: its schema version
/// first), which converting to nlohmann::json would sort.
inline std::string json_text(const nlohmann::ordered_json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace mxc
