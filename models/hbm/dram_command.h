#pragma once
// DRAM commands as issued on one pseudo-channel's command buses. HBM has
// separate row (ACT, PRE, REF) and column (RD, WR) buses, so one row and one
// column command may share a cycle.
#include <cstdint>
#include <string>

namespace mxc {

enum class DramCmd : std::uint8_t { kAct, kPre, kPreA, kRd, kWr, kRdA, kWrA, kRefAb, kRefSb };

inline bool is_column(DramCmd c) {
  return c == DramCmd::kRd || c == DramCmd::kWr || c == DramCmd::kRdA || c == DramCmd::kWrA;
}
inline bool is_read(DramCmd c) { return c == DramCmd::kRd || c == DramCmd::kRdA; }
inline bool is_write(DramCmd c) { return c == DramCmd::kWr || c == DramCmd::kWrA; }
inline bool auto_precharges(DramCmd c) { return c == DramCmd::kRdA || c == DramCmd::kWrA; }

const char* to_string(DramCmd c);

/// One issued command. bg/bank are ignored for PREA and REFab.
struct DramCommand {
  std::uint64_t cycle = 0;
  DramCmd cmd = DramCmd::kAct;
  std::uint32_t bg = 0;
  std::uint32_t bank = 0;
  std::uint32_t row = 0;
  std::uint32_t col = 0;
};

std::string to_string(const DramCommand& c);

}  // namespace mxc
