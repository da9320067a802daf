#include "models/hbm/timing_table.h"

#include <algorithm>

namespace mxc::hbm {

std::string_view constraint_name(Constraint c) {
  constexpr std::string_view kNames[kNumConstraints] = {
      "none", "tRCD", "tRP", "tRAS", "tRC", "tRRD_S", "tRRD_L", "tFAW", "tCCD_S", "tCCD_L",
      "tRTW", "tWTR_S", "tWTR_L", "tWR", "tRTP", "tRFC", "tRFCsb", "tRREFD", "command bus"};
  return kNames[static_cast<int>(c)];
}

void TimingTable::add(std::initializer_list<Cmd> prev, std::initializer_list<Cmd> next, Scope s,
                      std::uint32_t cycles, Constraint why) {
  for (Cmd p : prev)
    for (Cmd n : next) m_rows[static_cast<int>(p)].push_back({n, s, cycles, why});
}

TimingTable::TimingTable(const HbmTiming& t) {
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
  add({kPre}, {kAct, kRefSb}, kBank, t.RP, C::kRP);
  add({kPre}, {kRefAb}, kPseudoChannel, t.RP, C::kRP);
  add({kPreA}, {kAct, kRefAb, kRefSb}, kPseudoChannel, t.RP, C::kRP);

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

  // Refresh.
  add({kRefAb}, {kAct, kRefAb, kRefSb, kPreA, kPre}, kPseudoChannel, t.RFC, C::kRFC);
  add({kRefSb}, {kAct, kRefSb, kPre}, kBank, t.RFCsb, C::kRFCsb);
  add({kRefSb}, {kAct, kRefSb}, kPseudoChannel, t.RREFD, C::kRREFD);
  add({kRefSb}, {kRefAb, kPreA}, kPseudoChannel, t.RFCsb, C::kRFCsb);
}

}  // namespace mxc::hbm
