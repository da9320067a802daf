#include "models/hbm/refresh_policy.h"

#include <algorithm>
#include <limits>

namespace mxc::hbm {

RefreshPolicy::RefreshPolicy(RefreshMode mode, const HbmTiming& t, std::uint32_t banks, std::uint32_t postpone)
    : m_mode(mode),
      m_interval(mode == RefreshMode::kPerBank ? t.REFIsb : t.REFI),
      m_busy(mode == RefreshMode::kPerBank ? t.RFCsb : t.RFC),
      m_banks(banks),
      m_due(mode == RefreshMode::kNone ? std::numeric_limits<std::uint64_t>::max() : m_interval),
      m_postpone(mode == RefreshMode::kAllBank ? postpone : 0),
      m_spans(banks) {}

void RefreshPolicy::wanted(const BankState& state, Cmd* cmd, std::uint32_t* bank) const {
  if (m_mode == RefreshMode::kAllBank) {
    *bank = 0;
    *cmd = state.open_banks() > 0 ? Cmd::kPreA : Cmd::kRefAb;
  } else {
    *bank = m_bank;
    *cmd = state.open_row(m_bank) != BankState::kClosed ? Cmd::kPre : Cmd::kRefSb;
  }
}

std::uint64_t RefreshPolicy::on_issue(Cmd cmd, std::uint64_t cycle) {
  if (cmd != Cmd::kRefAb && cmd != Cmd::kRefSb) return 0;
  ++m_count;
  if (m_for_due) m_due += m_interval;
  else --m_owed;
  m_for_due = false;
  // From when it held its banks to the end of its tRFC / tRFCsb, but each
  // bank-cycle once: a refresh that fell due while the last one's tRFC
  // still ran (one due during a batch of owed ones, or while an idle
  // controller paid them) counts from that one's end.
  const std::uint64_t last_end = m_spans[m_mode == RefreshMode::kPerBank ? m_bank : 0].end;
  const std::uint64_t lost = cycle + m_busy - std::max(m_pending_since, last_end);
  const auto set = [&](Span& s) {
    if (m_pending_since > s.end) s.start = m_pending_since;  // else an owed one, back to back: one span
    s.end = cycle + m_busy;
  };
  if (m_mode == RefreshMode::kPerBank) set(m_spans[m_bank]);
  else for (Span& s : m_spans) set(s);
  // The owed ones follow back to back. An all-bank one waits out this
  // one's tRFC, which `lost` already counts for every bank; a per-bank
  // one's bank waits from now.
  m_pending = m_owed != 0;
  m_pending_since = m_mode == RefreshMode::kAllBank ? cycle + m_busy : cycle;
  if (m_mode == RefreshMode::kPerBank) {
    m_bank = (m_bank + 1) % m_banks;
    return lost;
  }
  return lost * m_banks;
}

}  // namespace mxc::hbm
