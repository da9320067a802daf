#pragma once
// The scheduler's timing table (as in DRAMsim3): for each issued command,
// which later commands it delays, in which scope, and by how many cycles.
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
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
  kRFC, kRFCsb, kRREFD, kPPD, kCmdBus, kCount
};
inline constexpr int kNumConstraints = static_cast<int>(Constraint::kCount);
std::string_view constraint_name(Constraint c);

struct TimingEntry {
  Cmd next;
  Scope scope;
  std::uint32_t cycles;
  Constraint why;
};

/// constexpr: its shape (which commands each command constrains, in which
/// scope) does not depend on the timing values, and BankState reads the
/// shape at compile time to apply each command's rules without a loop.
class TimingTable {
 public:
  constexpr explicit TimingTable(const HbmTiming& t);
  /// Constraints that command `prev` places on later commands.
  constexpr const std::vector<TimingEntry>& after(Cmd prev) const { return m_rows[static_cast<int>(prev)]; }

 private:
  constexpr void add(std::initializer_list<Cmd> prev, std::initializer_list<Cmd> next, Scope s,
                     std::uint32_t cycles, Constraint why);
  std::array<std::vector<TimingEntry>, kNumCmds> m_rows;
};

constexpr void TimingTable::add(std::initializer_list<Cmd> prev, std::initializer_list<Cmd> next, Scope s,
                                std::uint32_t cycles, Constraint why) {
  for (Cmd p : prev)
    for (Cmd n : next) m_rows[static_cast<int>(p)].push_back({n, s, cycles, why});
}

constexpr TimingTable::TimingTable(const HbmTiming& t) {
  using enum Cmd;
  using enum Scope;
  using C = Constraint;
  const std::uint32_t bl = t.burst_cycles;
  const std::uint32_t wr_end = t.CWL + bl;  // last write beat, counted from WR
  const auto reads = {kRd, kRdA};
  const auto writes = {kWr, kWrA};

  // Row commands.
  add({kAct}, {kAct}, kBank, t.RC, C::kRC);
  // An auto-precharge starts no earlier than tRAS after ACT: when rounding to
  // cycles makes tRC < tRAS + tRP, that bound is the tighter one.
  add({kAct}, {kAct, kRefSb}, kBank, t.RAS + t.RP, C::kRAS);
  add({kAct}, {kRefAb}, kPseudoChannel, t.RAS + t.RP, C::kRAS);
  add({kAct}, {kAct}, kBankGroup, t.RRD_L, C::kRRD_L);
  add({kAct}, {kAct}, kPseudoChannel, t.RRD_S, C::kRRD_S);
  add({kAct}, reads, kBank, t.RCDRD, C::kRCD);
  add({kAct}, writes, kBank, t.RCDWR, C::kRCD);
  add({kAct}, {kPre}, kBank, t.RAS, C::kRAS);
  add({kAct}, {kPreA}, kPseudoChannel, t.RAS, C::kRAS);
  add({kAct}, {kRefAb}, kPseudoChannel, t.RC, C::kRC);
  add({kAct}, {kRefSb}, kBank, t.RC, C::kRC);
  add({kAct}, {kRefSb}, kPseudoChannel, t.RRD_S, C::kRRD_S);
  // A per-bank refresh is spaced from an activate as another activate is:
  // tRRD_L within the bank group (Ramulator 2's C++ HBM2 and HBM3 models).
  add({kAct}, {kRefSb}, kBankGroup, t.RRD_L, C::kRRD_L);
  add({kPre}, {kAct, kRefSb}, kBank, t.RP, C::kRP);
  add({kPre}, {kRefAb}, kPseudoChannel, t.RP, C::kRP);
  add({kPreA}, {kAct, kRefAb, kRefSb}, kPseudoChannel, t.RP, C::kRP);
  // Precharge to precharge in a pseudo-channel (HBM3's tPPD, JESD238;
  // Ramulator 2.1 applies nPPD from PRE / PREA to PRE / PREA). Listed
  // whatever its value, as the table's shape must be: 0 (HBM2, HBM2E) allows
  // the next precharge in the same cycle, which the row bus never does.
  add({kPre, kPreA}, {kPre, kPreA}, kPseudoChannel, t.PPD, C::kPPD);

  // Column commands: data-bus occupancy is folded into tCCD.
  add(reads, reads, kPseudoChannel, std::max(t.CCD_S, bl), C::kCCD_S);
  add(reads, reads, kBankGroup, std::max(t.CCD_L, bl), C::kCCD_L);
  add(writes, writes, kPseudoChannel, std::max(t.CCD_S, bl), C::kCCD_S);
  add(writes, writes, kBankGroup, std::max(t.CCD_L, bl), C::kCCD_L);
  add(reads, writes, kPseudoChannel, t.RTW, C::kRTW);
  add(writes, reads, kPseudoChannel, wr_end + t.WTR_S, C::kWTR_S);
  add(writes, reads, kBankGroup, wr_end + t.WTR_L, C::kWTR_L);
  add({kRd}, {kPre}, kBank, t.RTP, C::kRTP);
  add({kRd}, {kPreA}, kPseudoChannel, t.RTP, C::kRTP);
  add({kWr}, {kPre}, kBank, wr_end + t.WR, C::kWR);
  add({kWr}, {kPreA}, kPseudoChannel, wr_end + t.WR, C::kWR);
  // Auto-precharge: the bank closes tRTP (reads) or write recovery after the
  // command, then needs tRP; tRAS is already implied by tRC.
  add({kRdA}, {kAct, kRefSb}, kBank, t.RTP + t.RP, C::kRP);
  add({kRdA}, {kRefAb}, kPseudoChannel, t.RTP + t.RP, C::kRP);
  add({kRdA}, {kPreA}, kPseudoChannel, t.RTP, C::kRTP);
  add({kWrA}, {kAct, kRefSb}, kBank, wr_end + t.WR + t.RP, C::kWR);
  add({kWrA}, {kRefAb}, kPseudoChannel, wr_end + t.WR + t.RP, C::kWR);
  add({kWrA}, {kPreA}, kPseudoChannel, wr_end + t.WR, C::kWR);
  // A write's recovery holds any precharge of its bank, a read's
  // auto-precharge too (WR, then RDA once tWTR_L allows: tWTR_L + tRTP may
  // fall short of tWR), so the bank opens or refreshes no earlier than
  // write recovery and tRP after the write. An explicit PRE or a WRA already
  // implies it.
  add({kWr}, {kAct, kRefSb}, kBank, wr_end + t.WR + t.RP, C::kWR);
  add({kWr}, {kRefAb}, kPseudoChannel, wr_end + t.WR + t.RP, C::kWR);

  // Refresh.
  add({kRefAb}, {kAct, kRefAb, kRefSb, kPreA, kPre}, kPseudoChannel, t.RFC, C::kRFC);
  add({kRefSb}, {kAct, kRefSb, kPre}, kBank, t.RFCsb, C::kRFCsb);
  add({kRefSb}, {kAct, kRefSb}, kPseudoChannel, t.RREFD, C::kRREFD);
  add({kRefSb}, {kRefAb, kPreA}, kPseudoChannel, t.RFCsb, C::kRFCsb);
}

}  // namespace mxc::hbm
