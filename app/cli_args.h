#pragma once
// Command-line helpers shared by the subcommands.
#include <cxxopts.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

/// What parse_arguments needs to know of a subcommand beyond its options.
struct ArgumentSpec {
  /// Letters of one-letter long options (see NormalizedArgs).
  std::string_view letters = {};
  /// Options that name a file the command writes its results to: each one
  /// given is checked before the run (check_output_path), so a long run is
  /// not wasted on a path it cannot write.
  std::vector<std::string_view> output_files = {};
  /// Options that name a file the command reads (a config, a trace, a
  /// database): an output naming one of them is refused before the run,
  /// which would otherwise overwrite its own input.
  std::vector<std::string_view> input_files = {};
  /// Options of input_files given as positional arguments, and the names
  /// the help shows them by ("config" as CONFIG), for messages.
  std::vector<std::pair<std::string_view, std::string_view>> positional = {};
  /// Printed after the options by --help (examples).
  std::string_view help_footer = {};
  /// Options of one value that may be given several times, each value kept
  /// in order (option_values); any other is refused when given twice.
  std::vector<std::string_view> repeatable = {};
};

/// What a parser message quotes ("-8" of "Argument ‘-8’ failed to parse"), empty
/// when it quotes nothing.
std::string quoted_in(const std::string& message);

/// Every value option `name` was given, in the order given: several for an
/// ArgumentSpec::repeatable option (read whole, commas and all), else one.
std::vector<std::string> option_values(const cxxopts::ParseResult& args, const std::string& name);

/// Throws std::invalid_argument when one of the `outputs` options given names
/// `path`, a file the command reads that no option names (a file a config
/// refers to, `what` saying which): writing it would overwrite the input.
void refuse_output_over(const cxxopts::ParseResult& args, const std::vector<std::string_view>& outputs,
                        const std::string& path, const std::string& what);

/// `path` made absolute, its links and ".." resolved as far as it exists: one
/// spelling of a file however it is named.
std::string full_path(const std::string& path);

/// `text` as a decimal option reads it when it is a decimal number and nothing else (a '+' first
/// allowed; no hex, no white space), else nullopt. cxxopts reads a decimal option with a stream
/// and ignores what follows the number, so `--clock-mhz 1.5GHz` would run at 1.5 MHz: every
/// decimal option's text, and list entries read as one (`--sweep-clocks`), go through this.
std::optional<double> decimal_value(std::string_view text);

/// `v` as a stream prints it by default, for messages: "1e-12", "0.5", "45".
std::string shortest(double v);

/// Parses a subcommand's arguments. Returns the exit code when the command
/// is done already: --help printed (0), or a parse error, a flag given a
/// value (`--flag=false`), an unexpected argument or an output file that
/// cannot be written reported on standard error (2), as is an output naming
/// an input file; nullopt to go on with `args`.
std::optional<int> parse_arguments(cxxopts::Options& opts, int argc, char** argv, cxxopts::ParseResult& args,
                                   const ArgumentSpec& spec = {});

}  // namespace mxc::app
