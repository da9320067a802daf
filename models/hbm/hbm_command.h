#pragma once
// DRAM commands a pseudo-channel controller issues.
#include <cstdint>
#include <string_view>

namespace mxc::hbm {

enum class Cmd : std::uint8_t { kAct, kPre, kPreA, kRd, kWr, kRdA, kWrA, kRefAb, kRefSb };
inline constexpr int kNumCmds = 9;

inline constexpr std::string_view cmd_name(Cmd c) {
  constexpr std::string_view kNames[kNumCmds] = {"ACT", "PRE", "PREA", "RD", "WR", "RDA", "WRA", "REFab", "REFsb"};
  return kNames[static_cast<int>(c)];
}
inline constexpr bool is_column(Cmd c) { return c == Cmd::kRd || c == Cmd::kWr || c == Cmd::kRdA || c == Cmd::kWrA; }
inline constexpr bool is_read(Cmd c) { return c == Cmd::kRd || c == Cmd::kRdA; }
inline constexpr bool is_write(Cmd c) { return c == Cmd::kWr || c == Cmd::kWrA; }

/// One command as issued on a pseudo-channel's command bus.
struct DramCommand {
  Cmd cmd = Cmd::kAct;
  std::uint32_t bank = 0;  ///< Flat bank index: bank_group * banks_per_group + bank.
  std::uint32_t row = 0;
  std::uint32_t col = 0;   ///< Burst index within the row.
  std::uint64_t cycle = 0;
};

}  // namespace mxc::hbm
