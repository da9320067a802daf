#pragma once
// The scheduler's timing table (as in DRAMsim3): for each issued command,
// which later commands it delays, in which scope, and by how many cycles.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "models/hbm/hbm_command.h"
#include "models/hbm/hbm_spec.h"

namespace mxc::hbm {

/// Where a constraint applies relative to the bank of the earlier command.
enum class Scope : std::uint8_t { kBank, kBankGroup, kPseudoChannel };

/// Named timing constraints; ids index statistics of stall cycles.
enum class Constraint : std::uint8_t {
  kNone, kRCD, kRP, kRAS, kRC, kRRD_S, kRRD_L, kFAW, kCCD_S, kCCD_L, kRTW, kWTR_S, kWTR_L, kWR, kRTP,
  kRFC, kRFCsb, kRREFD, kCmdBus, kCount
};
inline constexpr int kNumConstraints = static_cast<int>(Constraint::kCount);
std::string_view constraint_name(Constraint c);

struct TimingEntry {
  Cmd next;
  Scope scope;
  std::uint32_t cycles;
  Constraint why;
};

class TimingTable {
 public:
  explicit TimingTable(const HbmTiming& t);
  /// Constraints that command `prev` places on later commands.
  const std::vector<TimingEntry>& after(Cmd prev) const { return m_rows[static_cast<int>(prev)]; }

 private:
  void add(std::initializer_list<Cmd> prev, std::initializer_list<Cmd> next, Scope s, std::uint32_t cycles,
           Constraint why);
  std::array<std::vector<TimingEntry>, kNumCmds> m_rows;
};

}  // namespace mxc::hbm
