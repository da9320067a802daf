#pragma once
// A subcommand of `mxcosim`: its name, a one-line summary for `mxcosim
// --help`, and an entry point taking the arguments after the name (argv[0]
// is "mxcosim <name>") and returning the process exit code.
#include <span>
#include <string_view>

namespace mxc::app {

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*main)(int argc, char** argv);
};

/// Every subcommand, in the order `mxcosim --help` lists them.
std::span<const Command> commands();

// Exit codes shared by every subcommand.
inline constexpr int kExitPass = 0;
inline constexpr int kExitFail = 1;   ///< The simulation ran and found a mismatch.
inline constexpr int kExitUsage = 2;  ///< Bad command line, config or input file.
inline constexpr int kExitStopped = 130;  ///< Stopped by SIGINT, SIGTERM or SIGHUP (128 + SIGINT, as shells say).

}  // namespace mxc::app
