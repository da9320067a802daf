#include "models/core/yaml_reader.h"

#include <cmath>
#include <fstream>
#include <map>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace mxc {

namespace {
std::string fmt(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
}  // namespace

YAML::Node YamlReader::load(const std::string& text) const {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    throw std::invalid_argument(m_origin + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
  // A config is one document: the fields after a second "---" would
  // otherwise be ignored without a word.
  for (std::size_t i = 1; i < docs.size(); ++i)
    if (!docs[i].IsNull())
      throw std::invalid_argument(m_origin + ":" + std::to_string(docs[i].Mark().line + 1) +
                                  ": a second YAML document ('---'): a config file holds one");
  return docs.empty() ? YAML::Node() : docs.front();
}

void YamlReader::fail(const YAML::Node& n, const std::string& field, const std::string& why) const {
  const int line = n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
  throw std::invalid_argument(m_origin + ":" + std::to_string(line) + ": field '" + field + "': " + why);
}

RepeatedKey first_repeated_key(const YAML::Node& map) {
  std::map<std::string, int> seen;  // key -> line
  for (const auto& kv : map) {
    const auto [it, fresh] = seen.emplace(kv.first.as<std::string>(), kv.first.Mark().line + 1);
    if (!fresh) return {true, kv.first, it->second};
  }
  return {};
}

void YamlReader::unique_keys(const YAML::Node& map, const std::string& field) const {
  // A key that is a sequence or a mapping (YAML's "? [a]") names no field,
  // and reading it as a string would throw with no file or line.
  for (const auto& kv : map)
    if (!kv.first.IsScalar())
      fail(kv.first, field.empty() ? "(top level)" : field, "a key must be a plain name, not a sequence or a mapping");
  if (const RepeatedKey r = first_repeated_key(map); r.found) {
    const std::string k = r.second.as<std::string>();
    fail(r.second, field.empty() ? k : field + "." + k,
         "duplicate key (first given on line " + std::to_string(r.first_line) + ")");
  }
}

void YamlReader::keys(const YAML::Node& map, const std::string& field, const std::set<std::string>& allowed) const {
  if (!map.IsMap()) fail(map, field, "expected a mapping");
  unique_keys(map, field);
  for (const auto& kv : map) {
    const std::string k = kv.first.as<std::string>();
    if (!allowed.count(k)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(kv.first, field.empty() ? k : field + "." + k, "unknown key (expected one of: " + list + ")");
    }
  }
}

double YamlReader::number(const YAML::Node& n, const std::string& field, double lo, double hi) const {
  double v;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    fail(n, field, "expected a number");
  }
  if (!std::isfinite(v) || v < lo || v > hi)
    fail(n, field, "must be in [" + fmt(lo) + ", " + fmt(hi) + "], got " + n.as<std::string>());
  return v;
}

std::uint32_t YamlReader::uint(const YAML::Node& n, const std::string& field, std::uint32_t lo, std::uint32_t hi) const {
  const double v = number(n, field, lo, hi);
  if (v != std::floor(v)) fail(n, field, "expected a whole number");
  return static_cast<std::uint32_t>(v);
}

std::uint64_t YamlReader::uint64(const YAML::Node& n, const std::string& field) const {
  try {
    if (n.IsScalar() && !n.Scalar().empty() && n.Scalar()[0] != '-') return n.as<std::uint64_t>();
  } catch (const YAML::Exception&) {
  }
  fail(n, field, "expected a non-negative whole number");
}

Time YamlReader::ns(const YAML::Node& n, const std::string& field) const {
  return static_cast<Time>(std::llround(number(n, field, 0, 1e9) * 1000.0));
}

bool YamlReader::boolean(const YAML::Node& n, const std::string& field) const {
  try {
    return n.as<bool>();
  } catch (const YAML::Exception&) {
    fail(n, field, "expected true or false");
  }
}

std::string YamlReader::string(const YAML::Node& n, const std::string& field) const {
  if (!n.IsScalar()) fail(n, field, "expected a string");
  return n.as<std::string>();
}

std::string read_config_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::invalid_argument(path + ": cannot open " + what + ": it is a directory");
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open " + what);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace mxc
