#include "models/hbm/timing_table.h"

namespace mxc::hbm {

std::string_view constraint_name(Constraint c) {
  constexpr std::string_view kNames[kNumConstraints] = {
      "none", "tRCD", "tRP", "tRAS", "tRC", "tRRD_S", "tRRD_L", "tFAW", "tCCD_S", "tCCD_L",
      "tRTW", "tWTR_S", "tWTR_L", "tWR", "tRTP", "tRFC", "tRFCsb", "tRREFD", "tPPD", "command bus"};
  return kNames[static_cast<int>(c)];
}

}  // namespace mxc::hbm
