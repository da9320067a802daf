#include "models/core/yaml_reader.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <utility>
#include <stdexcept>

#include "models/core/utf8.h"

namespace mxc {

namespace {
// A bound as written: whole numbers in full (1048576, not 1.04858e+06).
std::string fmt(double v) {
  std::ostringstream s;
  if (v == std::floor(v) && std::fabs(v) < 1e15) s << static_cast<long long>(v);
  else s << std::setprecision(15) << v;
  return s.str();
}

// Checks a YAML text's event stream before the node tree is built from it.
// yaml-cpp 0.7, Debian 12's, has a token no rule consumes on some broken
// text (a stray ',' is one): its parser then reports null documents at the
// same place for ever, allocating until the machine runs out of memory
// (yaml-cpp issue 1040, fixed upstream after 0.8 by pull request 1319).
// No well-formed text has more events than a few per character, so past
// that bound the text is reported as a syntax error where the parser stuck.
// It also finds a second document with content, which a config must not
// have: its fields would be ignored without a word.
class EventCheck : public YAML::EventHandler {
 public:
  EventCheck(const std::string& origin, const std::string& text)
      : m_origin(origin), m_text(text), m_budget(4 * text.size() + 64) {}

  void start_document() { ++m_document; }

  void OnDocumentStart(const YAML::Mark& m) override { count(m); }
  void OnDocumentEnd() override { count(m_last); }
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { content(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { content(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    content(m);
  }
  void OnSequenceEnd() override { count(m_last); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    content(m);
  }
  void OnMapEnd() override { count(m_last); }

 private:
  std::string line_of(const YAML::Mark& m) const { return std::to_string(m.line >= 0 ? m.line + 1 : 1); }

  void count(const YAML::Mark& m) {
    m_last = m;
    if (m_budget-- > 0) return;
    std::string what = "the parser cannot go on here";
    // yaml-cpp's positions do not count a byte-order mark.
    const std::size_t at = static_cast<std::size_t>(m.pos) + (m_text.rfind("\xef\xbb\xbf", 0) == 0 ? 3 : 0);
    if (m.pos >= 0 && at < m_text.size()) {
      const char c = m_text[at];
      if (c > ' ' && c < 127) what = std::string("unexpected '") + c + "'";
    }
    throw std::invalid_argument(m_origin + ":" + line_of(m) + ": YAML syntax error: " + what);
  }

  void content(const YAML::Mark& m) {
    if (m_document > 1)
      throw std::invalid_argument(m_origin + ":" + line_of(m) +
                                  ": a second YAML document ('---'): a config file holds one");
    count(m);
  }

  const std::string& m_origin;
  const std::string& m_text;
  std::int64_t m_budget;  // events still allowed
  std::uint64_t m_document = 0;
  YAML::Mark m_last;
};

}  // namespace

YAML::Node YamlReader::load(const std::string& text) const {
  // The line and the column in characters of byte `at`, whose text before is UTF-8 (every
  // byte there that is not a continuation byte starts a character).
  const auto place = [&](std::size_t at) {
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
    const std::size_t start = at == 0 ? 0 : text.rfind('\n', at - 1) + 1;  // npos + 1 = 0: the first line
    const std::size_t column = 1 + static_cast<std::size_t>(std::count_if(
                                       text.begin() + static_cast<std::ptrdiff_t>(start),
                                       text.begin() + static_cast<std::ptrdiff_t>(at),
                                       [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
    return std::pair{line, column};
  };
  // Names and paths from a config end up in result files, which are JSON
  // and so UTF-8: a byte of another encoding (Latin-1, say) is reported
  // here, at its line, rather than replaced in the results.
  const std::size_t bad = first_non_utf8(text), nul = text.find('\0');
  if (bad != std::string_view::npos && (nul == std::string::npos || bad < nul)) {
    const auto [line, column] = place(bad);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[bad]));
    throw std::invalid_argument(m_origin + ":" + std::to_string(line) + ": not UTF-8 text (byte " + hex +
                                " in column " + std::to_string(column) + "); save the file as UTF-8");
  }
  // A NUL is UTF-8 but no config text, and inside a message it cuts the message short.
  if (nul != std::string::npos) {
    const auto [line, column] = place(nul);
    throw std::invalid_argument(m_origin + ":" + std::to_string(line) + ": a NUL byte in column " +
                                std::to_string(column) + " (a binary file?)");
  }
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    EventCheck check(m_origin, text);
    do check.start_document();
    while (parser.HandleNextDocument(check));
    // The text is one document that parses within bounds: build its nodes,
    // parsing it a second time (yaml-cpp 0.7 builds nodes only through
    // Load; its node builder is not public). A config parses in well under
    // a millisecond.
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(m_origin + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
}

namespace {
// The line (1-based) of node n, 0 for a node of no place (an empty file's).
int line_of(const YAML::Node& n) { return n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

[[noreturn]] void fail_at_line(const std::string& origin, int line, const std::string& field, const std::string& why) {
  // No line names the file alone: line 0 would be no line.
  throw std::invalid_argument(origin + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": field '" +
                              field + "': " + why);
}
}  // namespace

void YamlReader::fail(const YAML::Node& n, const std::string& field, const std::string& why) const {
  fail_at_line(m_origin, line_of(n), field, why);
}

void YamlReader::fail_at_field(const YAML::Node& root, const std::string& field, const std::string& why) const {
  fail_at_line(m_origin, field_line(root, field), field, why);
}

int field_line(const YAML::Node& root, const std::string& field) {
  // The key's line, not its value's: a block mapping's value starts at its first entry, a line
  // that names another field ("tile:" for system.tile.cols, not the "clock_mhz:" under it).
  int line = line_of(root);
  YAML::Node at = root;
  std::stringstream parts(field);
  for (std::string key; std::getline(parts, key, '.');) {
    if (!at.IsMap()) break;
    bool found = false;
    for (const auto& kv : at)
      if (kv.first.IsScalar() && kv.first.Scalar() == key) {
        line = line_of(kv.first);
        at.reset(kv.second);
        found = true;
        break;
      }
    if (!found) break;
  }
  return line;
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
    // Named at the key: yaml-cpp places an empty value at the next token, a later line (or
    // one past the file's end).
    if (kv.second.IsNull()) fail(kv.first, field.empty() ? k : field + "." + k, "has no value");
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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot open " + what);
  // Read in pieces up to the bound: a wrong path (a device such as
  // /dev/zero, a data file) is refused instead of read into memory whole.
  std::string text;
  char piece[65536];
  while (in.read(piece, sizeof piece) || in.gcount() > 0) {
    text.append(piece, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxConfigBytes)
      throw std::invalid_argument(path + ": cannot read " + what + ": larger than " +
                                  std::to_string(kMaxConfigBytes >> 20) + " MiB");
  }
  if (in.bad()) throw std::invalid_argument(path + ": cannot read " + what);
  return text;
}

}  // namespace mxc
