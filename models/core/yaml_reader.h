#pragma once
// Reading a YAML config with errors that name the file, the line and the
// field: "configs/x.yaml:12: field 'ici.link.latency_ns': must be in [0, 1e9]".
// Every config loader reads through this one class.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <set>
#include <string>

#include "models/core/input_limits.h"
#include "models/core/time.h"

namespace mxc {

class YamlReader {
 public:
  /// `origin` names the source in messages (a path, or "<string>").
  explicit YamlReader(std::string origin) : m_origin(std::move(origin)) {}

  /// Parses text (one document); a syntax error names the line.
  YAML::Node load(const std::string& text) const;

  /// Throws std::invalid_argument "ORIGIN:LINE: field 'FIELD': WHY" at node n.
  [[noreturn]] void fail(const YAML::Node& n, const std::string& field, const std::string& why) const;
  /// The same for the dotted `field` below `root` ("system.checks.backpressure"),
  /// at its line when the file gives it, else at its nearest ancestor's: for
  /// rules checked after loading, which know the field, not the node.
  [[noreturn]] void fail_at_field(const YAML::Node& root, const std::string& field, const std::string& why) const;

  /// Checks that `map` is a mapping with no keys beyond `allowed` (typos must
  /// not pass silently), none given twice and none without a value.
  void keys(const YAML::Node& map, const std::string& field, const std::set<std::string>& allowed) const;
  /// Checks that every key of `map` is a plain name given once.
  void unique_keys(const YAML::Node& map, const std::string& field) const;

  double number(const YAML::Node& n, const std::string& field, double lo, double hi) const;
  std::uint32_t uint(const YAML::Node& n, const std::string& field, std::uint32_t lo, std::uint32_t hi) const;
  std::uint64_t uint64(const YAML::Node& n, const std::string& field) const;
  /// A duration in nanoseconds, as picoseconds.
  Time ns(const YAML::Node& n, const std::string& field) const;
  bool boolean(const YAML::Node& n, const std::string& field) const;
  std::string string(const YAML::Node& n, const std::string& field) const;

  const std::string& origin() const { return m_origin; }

 private:
  std::string m_origin;
};

/// The line (1-based) of the dotted `field` below `root` ("system.tile.rows"): of its key
/// when the text gives the field, else of its nearest enclosing field's key (`tile:` for
/// "system.tile.rows" where the tile mapping has no rows), else of the root; 0 when nothing
/// there has a place (an empty text). What fail_at_field names, and system configs' messages
/// after loading.
int field_line(const YAML::Node& root, const std::string& field);

/// A key given twice in a mapping: yaml-cpp keeps both and lookups see the
/// first, so the second would be ignored silently. `second` is the repeated
/// key's node, `first_line` the line (1-based) of its first occurrence;
/// `found` is false when every key is unique. Every config loader rejects them.
struct RepeatedKey {
  bool found = false;
  YAML::Node second;
  int first_line = 0;
};
RepeatedKey first_repeated_key(const YAML::Node& map);

/// The contents of a config file; throws std::invalid_argument naming it
/// when it cannot be read or is larger than kMaxConfigBytes.
std::string read_config_file(const std::string& path, const std::string& what);

}  // namespace mxc
