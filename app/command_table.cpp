#include "command.h"

namespace mxc::app {

int run_main(int argc, char** argv);
int regress_main(int argc, char** argv);
int report_main(int argc, char** argv);
int ici_main(int argc, char** argv);
int hbm_main(int argc, char** argv);
int model_main(int argc, char** argv);
int serve_main(int argc, char** argv);

namespace {
constexpr Command kCommands[] = {
    {"run", "co-simulate a workload on the RTL tile against the reference and models", run_main},
    {"regress", "run a regression suite in parallel; results history, JUnit XML, HTML report", regress_main},
    {"report", "regenerate the reports of a run from a results database (and merge shards)", report_main},
    {"ici", "simulate the ICI fabric: synthetic traffic load sweeps and collectives", ici_main},
    {"hbm", "run the HBM memory model on generated traffic or a DRAMsim3 / Ramulator trace", hbm_main},
    {"model", "run a workload on the performance model alone or in closed form; design-space sweeps", model_main},
    {"serve", "serve a system's memories and fabric to `mxcosim run --connect` in other processes", serve_main},
};
}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace mxc::app
