#include "command.h"

namespace mxc::app {

int run_main(int argc, char** argv);
int ici_main(int argc, char** argv);
int hbm_main(int argc, char** argv);

namespace {
constexpr Command kCommands[] = {
    {"run", "co-simulate a workload on the RTL tile against the reference and models", run_main},
    {"ici", "simulate the ICI fabric: synthetic traffic load sweeps and collectives", ici_main},
    {"hbm", "run the HBM memory model on generated traffic or a DRAMsim3 / Ramulator trace", hbm_main},
};
}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace mxc::app
