#pragma once
// Command-line helpers shared by the subcommands.
#include <cxxopts.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxc::app {

/// cxxopts reads a one-letter long option such as `--m 16` as malformed.
/// Returns argv with `--X` / `--X=V` rewritten to `-X` / `-X V` for each
/// letter X in `letters`, so such options can be declared as short ones
/// ("m,gemm-m") and users may write the documented `--m 16`.
class NormalizedArgs {
 public:
  NormalizedArgs(int argc, char** argv, std::string_view letters);
  int argc() const { return static_cast<int>(m_ptrs.size()); }
  char** argv() { return m_ptrs.data(); }

 private:
  std::vector<std::string> m_args;
  std::vector<char*> m_ptrs;
};

/// Parses a subcommand's arguments (one-letter long options in
/// `letters`, see NormalizedArgs). Returns the exit code when the command is
/// done already: --help printed (0), or a parse error or an unexpected
/// argument reported on standard error (2); nullopt to go on with `args`.
std::optional<int> parse_arguments(cxxopts::Options& opts, int argc, char** argv, cxxopts::ParseResult& args,
                                   std::string_view letters = "");

}  // namespace mxc::app
