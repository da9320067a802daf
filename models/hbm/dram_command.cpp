#include "models/hbm/dram_command.h"

namespace mxc {

const char* to_string(DramCmd c) {
  switch (c) {
    case DramCmd::kAct: return "ACT";
    case DramCmd::kPre: return "PRE";
    case DramCmd::kPreA: return "PREA";
    case DramCmd::kRd: return "RD";
    case DramCmd::kWr: return "WR";
    case DramCmd::kRdA: return "RDA";
    case DramCmd::kWrA: return "WRA";
    case DramCmd::kRefAb: return "REFab";
    case DramCmd::kRefSb: return "REFsb";
  }
  return "?";
}

std::string to_string(const DramCommand& c) {
  std::string s = std::string(to_string(c.cmd)) + " @" + std::to_string(c.cycle);
  if (c.cmd != DramCmd::kPreA && c.cmd != DramCmd::kRefAb)
    s += " bg" + std::to_string(c.bg) + " ba" + std::to_string(c.bank);
  if (c.cmd == DramCmd::kAct || is_column(c.cmd)) s += " row" + std::to_string(c.row);
  if (is_column(c.cmd)) s += " col" + std::to_string(c.col);
  return s;
}

}  // namespace mxc
