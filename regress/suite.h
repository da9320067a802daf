#pragma once
// A regression suite: tests expanded from a YAML file as the cartesian
// product of configs x workloads x seeds x sweep axes. A test is a list of
// arguments to `mxcosim`; the suite knows nothing of what they mean, so new
// options of `mxcosim run` need no change here.
#include <cstdint>
#include <string>
#include <vector>

namespace mxc::regress {

/// One test: a single invocation of `mxcosim`.
struct TestSpec {
  std::string id;                 ///< Unique and deterministic: group/axis=value,...
  std::string group;              ///< The suite group the test came from.
  std::vector<std::string> args;  ///< After `mxcosim`, e.g. {"run", "--rows", "4", ...}.
  std::vector<std::string> tags;
  std::string seed;               ///< The seed its args or an axis give, "" when none does.
  double timeout_seconds = 60;
  bool expect_fail = false;       ///< A mutation test: passes when the checker catches it.
};

struct Suite {
  std::string name;
  std::string path;
  std::string description;
  std::vector<TestSpec> tests;    ///< In file order; ids are unique.
};

/// Loads and expands a suite; throws std::runtime_error naming file, line and
/// field on bad input.
Suite load_suite(const std::string& path);

/// Same, from YAML text; `path` only names the source in errors.
Suite parse_suite(const std::string& yaml_text, const std::string& path);

/// Tests carrying `tag` (all tests when tag is empty), order kept.
std::vector<TestSpec> filter_by_tag(const std::vector<TestSpec>& tests, const std::string& tag);

}  // namespace mxc::regress
