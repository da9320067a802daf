// mxcosim: RTL-coupled co-simulation of an MXU tile. Dispatches to the
// subcommands listed in command_table.cpp.
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "command.h"

namespace {

void print_usage(std::ostream& out) {
  out << "mxcosim - RTL-coupled co-simulation of an MXU tile against its models\n\n"
         "usage: mxcosim <command> [options]\n"
         "       mxcosim <command> --help   options of one command\n\n"
         "commands:\n";
  for (const auto& c : mxc::app::commands()) {
    std::string name(c.name);
    name.resize(10, ' ');
    out << "  " << name << c.summary << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
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
        return c.main(argc - 1, argv + 1);
      } catch (const std::exception& e) {
        std::cerr << prog << ": error: " << e.what() << "\n";
        return mxc::app::kExitUsage;
      }
    }
  }
  std::cerr << "mxcosim: unknown command '" << argv[1] << "'\n\n";
  print_usage(std::cerr);
  return mxc::app::kExitUsage;
}
