// mxcosim: RTL-coupled co-simulation of an MXU tile. Dispatches to the
// subcommands listed in command_table.cpp.
#include <cctype>
#include <csignal>
#include <cstring>
#include <cxxopts.hpp>
#include <exception>
#include <iostream>
#include <string>

#include "cli_args.h"
#include "command.h"
#include "regress/subprocess.h"

namespace {

extern "C" void on_sigpipe(int) {}

void print_usage(std::ostream& out) {
  out << "mxcosim - RTL-coupled co-simulation of an MXU tile against its models\n\n"
         "usage: mxcosim <command> [options]\n"
         "       mxcosim <command> --help   options of one command\n"
         "       mxcosim --version          the program's version\n\n"
         "commands:\n";
  for (const auto& c : mxc::app::commands()) {
    std::string name(c.name);
    name.resize(10, ' ');
    out << "  " << name << c.summary << "\n";
  }
}

// Whether `value` occurs in `message` as a whole word: "4" of `--rows 4`
// is not the option at fault in "Argument '4294967296' failed to parse".
bool mentions_whole(const std::string& message, const std::string& value) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t at = message.find(value); at != std::string::npos; at = message.find(value, at + 1)) {
    const std::size_t end = at + value.size();
    if ((at == 0 || !word(message[at - 1]) || !word(value.front())) &&
        (end == message.size() || !word(message[end]) || !word(value.back())))
      return true;
  }
  return false;
}

/// The option a value that failed to parse was given to ("--stacks" for
/// `--stacks -5` or `--stacks=-5`), empty when it cannot be told: the
/// parser's message names the value only.
std::string option_of_bad_value(int argc, char** argv, const std::string& message) {
  // The parser quotes the value: one given exactly that wins over one merely mentioned, so
  // `--rows 8 --cols -8` blames --cols for '-8', not --rows for the 8 in it.
  const std::string quoted = mxc::app::quoted_in(message);
  std::string mentioned;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() < 2 || a[0] != '-') continue;
    const auto eq = a.find('=');
    const std::string value = eq != std::string::npos ? a.substr(eq + 1) : i + 1 < argc ? argv[i + 1] : "";
    if (value.empty()) continue;
    if (value == quoted) return a.substr(0, eq);
    if (mentioned.empty() && mentions_whole(message, value)) mentioned = a.substr(0, eq);
  }
  return mentioned;
}

}  // namespace

int main(int argc, char** argv) {
  // A standard output whose reader left (`mxcosim run ... | head -1`) would kill the process on
  // its next write, before the results files: caught instead, the write fails with EPIPE, the
  // command goes on to write its files and says the output failed (exit 2). A handler rather
  // than SIG_IGN: exec resets it, so the programs a command starts get the default again.
  struct sigaction pipe_action {};
  pipe_action.sa_handler = on_sigpipe;
  sigemptyset(&pipe_action.sa_mask);
  sigaction(SIGPIPE, &pipe_action, nullptr);
  // A test of `mxcosim regress` ends with its runner, however the runner ends.
  if (!mxc::regress::end_with_parent_if_its_subprocess()) {
    std::cerr << "mxcosim: the regress runner that started this test has ended (MXCOSIM_SUBPROCESS_PARENT "
                 "names a process that is gone); not running\n";
    return mxc::app::kExitUsage;
  }
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    print_usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? mxc::app::kExitUsage : mxc::app::kExitPass;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::cout << "mxcosim " << MXCOSIM_VERSION << "\n";
    return 0;
  }
  for (const auto& c : mxc::app::commands()) {
    if (c.name == argv[1]) {
      std::string prog = std::string("mxcosim ") + argv[1];
      argv[1] = prog.data();
      try {
        const int code = c.main(argc - 1, argv + 1);
        // Results printed to a full disk or a closed pipe are lost: say so
        // rather than end as if they had been written.
        if (!std::cout.flush()) {
          std::cerr << prog << ": error: writing standard output failed: the results printed are incomplete\n";
          return code == mxc::app::kExitPass ? mxc::app::kExitUsage : code;
        }
        return code;
      } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
        const std::string option = option_of_bad_value(argc, argv, e.what());
        std::cerr << prog << ": error: " << (option.empty() ? "" : option + ": ") << e.what() << "\n";
        return mxc::app::kExitUsage;
      } catch (const std::exception& e) {
        std::cerr << prog << ": error: " << e.what() << "\n";
        return mxc::app::kExitUsage;
      }
    }
  }
  // The error comes last, after the list of commands: the last line is the
  // one a log's tail, and `mxcosim regress` recording the test, shows.
  print_usage(std::cerr);
  std::cerr << "\nmxcosim: unknown command '" << argv[1] << "'\n";
  return mxc::app::kExitUsage;
}
