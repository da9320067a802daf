#include "models/hbm/timing_checker.h"

#include <algorithm>

namespace mxc {

TimingChecker::TimingChecker(const HbmSpec& spec, RefreshMode refresh)
    : m_spec(spec),
      m_refresh(refresh),
      m_banks(spec.org.banks()),
      m_group_rd(spec.org.bank_groups),
      m_group_wr(spec.org.bank_groups),
      m_group_act(spec.org.bank_groups) {}

void TimingChecker::violation(const DramCommand& c, const std::string& rule, const std::string& detail) {
  m_violations.push_back({c, rule, to_string(c) + ": " + detail});
}

void TimingChecker::need(const DramCommand& c, const std::optional<std::uint64_t>& since, std::uint64_t gap,
                         const char* rule, const char* after) {
  if (since && c.cycle < *since + gap)
    violation(c, rule,
              std::string(rule) + " requires " + std::to_string(gap) + " cycles after " + after + " at " +
                  std::to_string(*since) + ", only " +
                  (c.cycle >= *since ? std::to_string(c.cycle - *since) : "-" + std::to_string(*since - c.cycle)) +
                  " passed");
}

void TimingChecker::check_refresh_pace(const DramCommand& at, std::uint64_t cycle) {
  const auto& t = m_spec.timing;
  if (m_refresh == RefreshMode::kAllBank) {
    const std::uint64_t due = cycle / t.REFI;
    if (m_refab_count + kMaxPostponed < due)
      violation(at, "tREFI",
                std::to_string(due) + " all-bank refreshes due by cycle " + std::to_string(cycle) + ", only " +
                    std::to_string(m_refab_count) + " issued (at most " + std::to_string(kMaxPostponed) +
                    " may be postponed)");
  } else if (m_refresh == RefreshMode::kPerBank) {
    // Each bank must be refreshed once per tREFI on average (REFIsb staggers them).
    const std::uint64_t due = cycle / t.REFI;
    for (std::size_t i = 0; i < m_banks.size(); ++i)
      if (m_banks[i].refreshes + kMaxPostponed < due) {
        violation(at, "tREFI",
                  "bank " + std::to_string(i) + " refreshed " + std::to_string(m_banks[i].refreshes) +
                      " times by cycle " + std::to_string(cycle) + ", " + std::to_string(due) + " due");
        break;
      }
  }
}

void TimingChecker::observe(const DramCommand& c) {
  ++m_seen;
  const auto& t = m_spec.timing;
  const std::uint64_t bl = m_spec.org.burst_length / 2;
  if (m_last_cycle && c.cycle < *m_last_cycle)
    violation(c, "order", "command issued before the previous one at " + std::to_string(*m_last_cycle));
  m_last_cycle = std::max(m_last_cycle.value_or(0), c.cycle);
  check_refresh_pace(c, c.cycle);

  auto any_open = [&] { return std::any_of(m_banks.begin(), m_banks.end(), [](const Bank& b) { return b.open; }); };

  switch (c.cmd) {
    case DramCmd::kAct: {
      Bank& b = bank(c);
      if (b.open) violation(c, "state", "ACT to a bank whose row " + std::to_string(b.row) + " is open");
      need(c, b.act, t.RC, "tRC", "ACT to the same bank");
      need(c, b.pre, t.RP, "tRP", "PRE of the same bank");
      need(c, b.ref, t.RFCsb, "tRFCsb", "REFsb of the same bank");
      need(c, m_last_refab, t.RFC, "tRFC", "REFab");
      need(c, m_group_act[c.bg], t.RRD_L, "tRRD_L", "ACT in the same bank group");
      if (m_recent_acts.size() == 4 && c.cycle < m_recent_acts.front() + t.FAW)
        violation(c, "tFAW",
                  "fifth ACT within tFAW=" + std::to_string(t.FAW) + " of the ACT at " +
                      std::to_string(m_recent_acts.front()));
      // Any other bank group's latest ACT also bounds by tRRD_S.
      for (std::uint32_t g = 0; g < m_group_act.size(); ++g)
        if (g != c.bg) need(c, m_group_act[g], t.RRD_S, "tRRD_S", "ACT in another bank group");
      b.open = true;
      b.row = c.row;
      b.act = c.cycle;
      m_group_act[c.bg] = c.cycle;
      m_recent_acts.push_back(c.cycle);
      if (m_recent_acts.size() > 4) m_recent_acts.pop_front();
      break;
    }
    case DramCmd::kPre:
    case DramCmd::kPreA: {
      for (std::uint32_t i = 0; i < m_banks.size(); ++i) {
        Bank& b = m_banks[i];
        const bool target = c.cmd == DramCmd::kPreA || &b == &bank(c);
        if (!target || !b.open) continue;  // precharging a closed bank is a legal no-op
        DramCommand at = c;
        at.bg = i / m_spec.org.banks_per_group;
        at.bank = i % m_spec.org.banks_per_group;
        need(at, b.act, t.RAS, "tRAS", "ACT of the bank");
        need(at, b.rd, t.RTP, "tRTP", "RD of the bank");
        need(at, b.wr, t.CWL + bl + t.WR, "tWR", "WR of the bank (CWL + BL/2 + WR)");
        b.open = false;
        b.pre = c.cycle;
      }
      break;
    }
    case DramCmd::kRd:
    case DramCmd::kRdA:
    case DramCmd::kWr:
    case DramCmd::kWrA: {
      Bank& b = bank(c);
      const bool rd = is_read(c.cmd);
      if (!b.open) violation(c, "state", std::string(rd ? "RD" : "WR") + " to a closed bank");
      else if (b.row != c.row)
        violation(c, "state", "column command to row " + std::to_string(c.row) + " but row " +
                                  std::to_string(b.row) + " is open");
      need(c, b.act, rd ? t.RCDRD : t.RCDWR, "tRCD", "ACT of the bank");
      if (rd) {
        need(c, m_group_rd[c.bg], t.CCD_L, "tCCD_L", "RD in the same bank group");
        need(c, m_group_wr[c.bg], t.CWL + bl + t.WTR_L, "tWTR_L", "WR in the same bank group (CWL + BL/2 + WTR_L)");
        for (std::uint32_t g = 0; g < m_group_wr.size(); ++g)
          if (g != c.bg) need(c, m_group_wr[g], t.CWL + bl + t.WTR_S, "tWTR_S", "WR in another bank group");
        for (std::uint32_t g = 0; g < m_group_rd.size(); ++g)
          if (g != c.bg) need(c, m_group_rd[g], t.CCD_S, "tCCD_S", "RD in another bank group");
        b.rd = c.cycle;
        m_group_rd[c.bg] = c.cycle;
        m_last_rd = c.cycle;
      } else {
        need(c, m_group_wr[c.bg], t.CCD_L, "tCCD_L", "WR in the same bank group");
        for (std::uint32_t g = 0; g < m_group_wr.size(); ++g)
          if (g != c.bg) need(c, m_group_wr[g], t.CCD_S, "tCCD_S", "WR in another bank group");
        need(c, m_last_rd, m_spec.rtw(), "tRTW", "RD (read-to-write turnaround)");
        b.wr = c.cycle;
        m_group_wr[c.bg] = c.cycle;
      }
      if (auto_precharges(c.cmd) && b.open) {
        // The internal precharge starts once tRAS and tRTP / write recovery allow.
        const std::uint64_t after_col = rd ? c.cycle + t.RTP : c.cycle + t.CWL + bl + t.WR;
        b.pre = std::max(after_col, *b.act + t.RAS);
        b.open = false;
      }
      break;
    }
    case DramCmd::kRefAb: {
      if (any_open()) violation(c, "state", "REFab while a bank is open");
      for (const Bank& b : m_banks) {
        need(c, b.pre, t.RP, "tRP", "PRE before refresh");
        need(c, b.ref, t.RFCsb, "tRFCsb", "REFsb");
      }
      need(c, m_last_refab, t.RFC, "tRFC", "REFab");
      m_last_refab = c.cycle;
      ++m_refab_count;
      for (Bank& b : m_banks) ++b.refreshes;
      break;
    }
    case DramCmd::kRefSb: {
      Bank& b = bank(c);
      if (b.open) violation(c, "state", "REFsb to an open bank");
      need(c, b.pre, t.RP, "tRP", "PRE of the bank");
      need(c, b.ref, t.RFCsb, "tRFCsb", "REFsb of the same bank");
      need(c, m_last_refab, t.RFC, "tRFC", "REFab");
      b.ref = c.cycle;
      ++b.refreshes;
      break;
    }
  }
}

void TimingChecker::finish(std::uint64_t cycle) {
  DramCommand at;
  at.cycle = cycle;
  at.cmd = DramCmd::kRefAb;
  check_refresh_pace(at, cycle);
}

}  // namespace mxc
