#include "regress/suite.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "models/core/yaml_reader.h"

namespace mxc::regress {

namespace {

// One value of one axis: the arguments it adds and the id fragment naming it.
struct AxisValue {
  std::string label;
  std::vector<std::string> args;
  std::string seed;
};
using Axis = std::vector<AxisValue>;

// Tests one suite may expand to.
constexpr std::size_t kMaxTests = 100000;

// The commands of mxcosim whose results never record a mismatch.
const std::set<std::string> kRecordsNoMismatch{"hbm", "ici", "model", "serve", "report", "regress"};

class Loader {
 public:
  explicit Loader(std::string path) : m_path(std::move(path)) {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& field, const std::string& what) const {
    std::ostringstream msg;
    msg << m_path;
    if (node.IsDefined() && node.Mark().line >= 0) msg << ":" << node.Mark().line + 1;
    msg << ": field '" << field << "': " << what;
    throw std::runtime_error(msg.str());
  }

  // Every key a plain name given once (the one check every config loader
  // makes): a repeated key would otherwise be dropped without a word.
  void unique_keys(const YAML::Node& map, const std::string& field) const {
    try {
      YamlReader(m_path).unique_keys(map, field);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(e.what());
    }
  }

  std::string scalar(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) fail(node, field, "expected a scalar value");
    return node.Scalar();
  }

  double positive_number(const YAML::Node& node, const std::string& field) const {
    const std::string s = scalar(node, field);
    try {
      std::size_t used = 0;
      const double v = std::stod(s, &used);
      if (used == s.size() && v > 0 && v < 1e7) return v;
    } catch (const std::exception&) {
    }
    fail(node, field, "expected a positive number of seconds, got '" + s + "'");
  }

  // A seed is what `mxcosim run --seed` takes: a whole number >= 0 that
  // fits in 64 bits, in decimal digits.
  std::string seed(const YAML::Node& node, const std::string& field) const {
    const std::string s = scalar(node, field);
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
      fail(node, field, "expected a seed, a whole number >= 0 below 2^64, got '" + s + "'");
    return s;
  }

  // A parameter: `key: value` becomes `--key value`; `key: true` becomes
  // `--key`; `key: false` adds nothing; `key: [v1, v2]` becomes `--key v1
  // --key v2` (an option given several times, such as run's --program).
  void append_param(std::vector<std::string>& args, const std::string& key, const YAML::Node& value,
                    const std::string& field) const {
    if (key.empty() || key[0] == '-') fail(value, field, "parameter names are written without leading dashes");
    // An option's name alone: "seed=5" would pass the checks below and then give --seed twice.
    for (const char c : key)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
        fail(value, field, "a parameter name is an option's name: letters, digits, '-' and '_' only");
    // The runner gives every test its own --json (the results file it reads):
    // a second one would make the test a usage error.
    if (key == "json") fail(value, field, "the runner gives each test its --json results file; a suite cannot");
    if (key == "positional")
      fail(value, field, "a positional argument is given by a config or workload ('positional: X'), not here");
    if (value.IsSequence()) {
      if (value.size() == 0) fail(value, field, "expected a non-empty list of values");
      for (std::size_t i = 0; i < value.size(); ++i) {
        args.push_back("--" + key);
        args.push_back(scalar(value[i], field + "[" + std::to_string(i) + "]"));
      }
      return;
    }
    const std::string v = scalar(value, field);
    if (v == "true") {
      args.push_back("--" + key);
    } else if (v != "false") {
      args.push_back("--" + key);
      args.push_back(v);
    }
  }

  // configs / workloads: a list of maps of parameters, each with a `name`;
  // `positional: X` adds X as a positional argument.
  Axis named_axis(const YAML::Node& list, const std::string& field) const {
    if (!list.IsSequence() || list.size() == 0) fail(list, field, "expected a non-empty list");
    Axis axis;
    std::set<std::string> names;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node entry = list[i];
      const std::string f = field + "[" + std::to_string(i) + "]";
      if (!entry.IsMap()) fail(entry, f, "expected a map with a 'name' and parameters");
      unique_keys(entry, f);
      AxisValue v;
      if (!entry["name"]) fail(entry, f + ".name", "missing");
      v.label = scalar(entry["name"], f + ".name");
      if (!names.insert(v.label).second) fail(entry["name"], f + ".name", "duplicate name '" + v.label + "'");
      for (const auto& kv : entry) {
        const std::string key = scalar(kv.first, f);
        if (key == "name") continue;
        if (key == "positional") {
          v.args.push_back(scalar(kv.second, f + ".positional"));
          continue;
        }
        if (key == "seed") v.seed = seed(kv.second, f + ".seed");
        append_param(v.args, key, kv.second, f + "." + key);
      }
      axis.push_back(std::move(v));
    }
    return axis;
  }

  // Values that are one number however written ("01" and "1", "0x10" and
  // "16", "1e1" and "10.0") compare equal: a command reads them alike (its
  // integer options take 0x hex).
  static std::string same_value_key(const std::string& value) {
    const char* const end = value.data() + value.size();
    std::uint64_t whole = 0;
    if (const auto r = std::from_chars(value.data(), end, whole); !value.empty() && r.ec == std::errc() && r.ptr == end)
      return "#" + std::to_string(whole);
    if (value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X'))
      if (const auto r = std::from_chars(value.data() + 2, end, whole, 16); r.ec == std::errc() && r.ptr == end)
        return "#" + std::to_string(whole);
    double number = 0;
    if (const auto r = std::from_chars(value.data(), end, number);
        !value.empty() && r.ec == std::errc() && r.ptr == end && std::isfinite(number)) {
      std::ostringstream o;
      o.precision(17);
      o << "#" << number;  // 10.0 and 1e1 print "10", as the whole number 10 does
      return o.str();
    }
    return "=" + value;
  }

  // seeds: [1, 2, 3] or sweep: {key: [v1, v2]} -- one axis per key.
  Axis value_axis(const std::string& key, const YAML::Node& list, const std::string& field) const {
    if (!list.IsSequence() || list.size() == 0) fail(list, field, "expected a non-empty list of values");
    Axis axis;
    std::map<std::string, std::string> seen;  // by value (same_value_key) -> as first written
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string f = field + "[" + std::to_string(i) + "]";
      AxisValue v;
      const std::string value = key == "seed" ? seed(list[i], f) : scalar(list[i], f);
      // " seq" would reach the command with its space and name the test apart from "seq".
      if (!value.empty() && (std::isspace(static_cast<unsigned char>(value.front())) ||
                             std::isspace(static_cast<unsigned char>(value.back()))))
        fail(list[i], f, "value '" + value + "' starts or ends with white space");
      if (const auto [it, fresh] = seen.emplace(same_value_key(value), value); !fresh)
        fail(list[i], f,
             "duplicate value '" + value + "'" + (it->second == value ? "" : " (the same as '" + it->second + "')"));
      v.label = key + "=" + value;
      append_param(v.args, key, list[i], f);
      if (key == "seed") v.seed = value;
      axis.push_back(std::move(v));
    }
    return axis;
  }

  std::vector<std::string> tags(const YAML::Node& node, const std::string& field) const {
    std::vector<std::string> out;
    if (!node) return out;
    if (!node.IsSequence()) fail(node, field, "expected a list of tags");
    for (std::size_t i = 0; i < node.size(); ++i) out.push_back(scalar(node[i], field + "[" + std::to_string(i) + "]"));
    return out;
  }

  void check_keys(const YAML::Node& map, const std::set<std::string>& allowed, const std::string& where) const {
    unique_keys(map, where);
    for (const auto& kv : map) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first, where.empty() ? key : where + "." + key, "unknown field (expected one of: " + list + ")");
      }
    }
  }

  void expand_group(const YAML::Node& g, std::size_t index, double default_timeout,
                    const std::vector<std::string>& suite_tags, const std::string& command, Suite& suite) const {
    const std::string f = "groups[" + std::to_string(index) + "]";
    if (!g.IsMap()) fail(g, f, "expected a map");
    check_keys(g, {"name", "command", "args", "configs", "workloads", "seeds", "sweep", "tags", "timeout", "expect"},
               f);
    if (!g["name"]) fail(g, f + ".name", "missing");
    const std::string name = scalar(g["name"], f + ".name");
    if (name.empty() || name.find('/') != std::string::npos || name.find(' ') != std::string::npos)
      fail(g["name"], f + ".name", "must be non-empty without '/' or spaces");
    // Shown in every console line and report: a control character would act on the terminal.
    if (std::any_of(name.begin(), name.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      fail(g["name"], f + ".name", "must not hold control characters (tab, newline, escape, ...)");
    // A test's logs go to a folder named after its id: "." or ".." would
    // be the tests folder itself or its parent.
    if (name == "." || name == "..") fail(g["name"], f + ".name", "must not be '.' or '..'");

    std::vector<std::string> base{g["command"] ? scalar(g["command"], f + ".command") : command};
    // Each parameter comes from one place: given twice (args and a sweep,
    // a workload and a sweep, seeds and a sweep of seed) the command gets
    // both and the last wins, so the test id would not say what ran.
    std::map<std::string, std::string> given_by;  // parameter -> field that gives it
    auto claim = [&](const std::string& key, const YAML::Node& at, const std::string& source,
                     const std::string& field) {
      const auto [it, fresh] = given_by.emplace(key, source);
      if (!fresh && it->second != source)
        fail(at, field, "parameter '" + key + "' is also given by " + it->second);
    };
    std::string fixed_seed;  // a seed in args: every test of the group runs with it
    if (const YAML::Node args = g["args"]) {
      if (!args.IsMap()) fail(args, f + ".args", "expected a map of parameters");
      unique_keys(args, f + ".args");
      for (const auto& kv : args) {
        const std::string key = scalar(kv.first, f + ".args");
        if (key == "seed") fixed_seed = seed(kv.second, f + ".args.seed");
        append_param(base, key, kv.second, f + ".args." + key);
        claim(key, kv.first, f + ".args", f + ".args." + key);
      }
    }
    std::vector<Axis> axes;
    for (const char* named : {"configs", "workloads"}) {
      const YAML::Node list = g[named];
      if (!list) continue;
      axes.push_back(named_axis(list, f + "." + named));
      for (std::size_t i = 0; i < list.size(); ++i)
        for (const auto& kv : list[i]) {
          const std::string key = kv.first.Scalar();
          if (key != "name" && key != "positional")
            claim(key, kv.first, f + "." + named, f + "." + named + "[" + std::to_string(i) + "]." + key);
        }
    }
    if (const YAML::Node sweep = g["sweep"]) {
      if (!sweep.IsMap()) fail(sweep, f + ".sweep", "expected a map of parameter: [values]");
      unique_keys(sweep, f + ".sweep");
      for (const auto& kv : sweep) {
        const std::string key = scalar(kv.first, f + ".sweep");
        claim(key, kv.first, f + ".sweep", f + ".sweep." + key);
        axes.push_back(value_axis(key, kv.second, f + ".sweep." + key));
      }
    }
    if (const YAML::Node seeds = g["seeds"]) {
      claim("seed", seeds, f + ".seeds", f + ".seeds");
      axes.push_back(value_axis("seed", seeds, f + ".seeds"));
    }

    // Count before building: a few short lists can multiply into more tests
    // than memory holds.
    std::size_t count = 1;
    for (const auto& axis : axes)
      if (__builtin_mul_overflow(count, axis.size(), &count)) count = SIZE_MAX;
    if (count > kMaxTests - suite.tests.size())
      fail(g, f, "expands to " + (count == SIZE_MAX ? std::string("too many") : std::to_string(count)) +
                     " tests; a suite may have at most " + std::to_string(kMaxTests) +
                     (suite.tests.empty() ? "" : " (" + std::to_string(suite.tests.size()) + " before this group)"));

    double timeout = g["timeout"] ? positive_number(g["timeout"], f + ".timeout") : default_timeout;
    bool expect_fail = false;
    if (g["expect"]) {
      const std::string e = scalar(g["expect"], f + ".expect");
      if (e != "pass" && e != "fail") fail(g["expect"], f + ".expect", "expected 'pass' or 'fail', got '" + e + "'");
      expect_fail = e == "fail";
      // An expected failure passes only on a recorded mismatch: a command that records none
      // would fail every time, whatever its checkers do.
      if (expect_fail && kRecordsNoMismatch.count(base.front()))
        fail(g["expect"], f + ".expect",
             "'fail' passes only when the test records a mismatch, which 'mxcosim " + base.front() +
                 "' never does (only 'mxcosim run' checks results): the test could never pass");
    }
    std::vector<std::string> tags = suite_tags;
    for (auto& t : this->tags(g["tags"], f + ".tags")) tags.push_back(t);

    // Odometer over the axes, last axis fastest, so ids come out in file order.
    std::vector<std::size_t> pos(axes.size(), 0);
    while (true) {
      TestSpec t;
      t.group = name;
      t.id = name;
      t.args = base;
      t.tags = tags;
      t.timeout_seconds = timeout;
      t.expect_fail = expect_fail;
      t.seed = fixed_seed;
      for (std::size_t a = 0; a < axes.size(); ++a) {
        const AxisValue& v = axes[a][pos[a]];
        t.id += "/" + v.label;
        t.args.insert(t.args.end(), v.args.begin(), v.args.end());
        if (!v.seed.empty()) t.seed = v.seed;
      }
      suite.tests.push_back(std::move(t));
      std::size_t a = axes.size();
      while (a > 0 && ++pos[a - 1] == axes[a - 1].size()) pos[--a] = 0;
      if (a == 0) break;
    }
  }

  Suite parse(const std::string& text) const {
    YAML::Node root;
    try {
      root = YamlReader(m_path).load(text);
    } catch (const std::invalid_argument& e) {  // suite errors are runtime errors, as the header says
      throw std::runtime_error(e.what());
    }
    if (!root.IsMap()) fail(root, "(top level)", "expected a map with 'suite' and 'groups'");
    check_keys(root, {"suite", "description", "timeout", "tags", "command", "groups"}, "");
    Suite s;
    s.path = m_path;
    if (!root["suite"]) fail(root, "suite", "missing");
    s.name = scalar(root["suite"], "suite");
    if (s.name.empty()) fail(root["suite"], "suite", "must not be empty");
    if (root["description"]) s.description = scalar(root["description"], "description");
    const double timeout = root["timeout"] ? positive_number(root["timeout"], "timeout") : 60.0;
    const std::string command = root["command"] ? scalar(root["command"], "command") : "run";
    const auto suite_tags = tags(root["tags"], "tags");
    const YAML::Node groups = root["groups"];
    if (!groups || !groups.IsSequence() || groups.size() == 0)
      fail(groups ? groups : root, "groups", "expected a non-empty list of test groups");
    std::vector<std::size_t> group_of;  // each test's index in groups
    for (std::size_t i = 0; i < groups.size(); ++i) {
      expand_group(groups[i], i, timeout, suite_tags, command, s);
      group_of.resize(s.tests.size(), i);
    }
    unique_ids(s, groups, group_of);
    return s;
  }

  // A repeated id is named at the group that repeats it, with the group
  // that gave it first.
  void unique_ids(const Suite& s, const YAML::Node& groups, const std::vector<std::size_t>& group_of) const {
    std::map<std::string, std::size_t> ids;
    for (std::size_t i = 0; i < s.tests.size(); ++i) {
      const auto [it, fresh] = ids.emplace(s.tests[i].id, i);
      if (fresh) continue;
      const std::size_t g = group_of[i], first = group_of[it->second];
      std::string also;
      if (first != g) {
        also = " (also by groups[" + std::to_string(first) + "]";
        if (groups[first].Mark().line >= 0) also += ", line " + std::to_string(groups[first].Mark().line + 1);
        also += ")";
      }
      fail(groups[g]["name"], "groups[" + std::to_string(g) + "].name",
           "test id '" + s.tests[i].id + "' is produced twice" + also);
    }
  }

 private:
  std::string m_path;
};

}  // namespace

Suite parse_suite(const std::string& yaml_text, const std::string& path) { return Loader(path).parse(yaml_text); }

Suite load_suite(const std::string& path) {
  std::string text;
  try {
    text = read_config_file(path, "suite file");
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
  return parse_suite(text, path);
}

std::vector<TestSpec> filter_by_tag(const std::vector<TestSpec>& tests, const std::string& tag) {
  if (tag.empty()) return tests;
  std::vector<TestSpec> out;
  for (const auto& t : tests)
    if (std::find(t.tags.begin(), t.tags.end(), tag) != t.tags.end()) out.push_back(t);
  return out;
}

}  // namespace mxc::regress
