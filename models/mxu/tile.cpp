#include "models/mxu/tile.h"

namespace mxc {

const std::vector<std::string>& perf_counter_names() {
  static const std::vector<std::string> kNames = {
      "cycles",       "busy_dma",       "busy_compute",  "busy_ici",          "array_active",   "stall_dispatch",
      "stall_memory", "stall_weights",  "stall_output",  "stall_ici_credits", "stall_ici_wait", "instructions",
  };
  return kNames;
}

}  // namespace mxc
