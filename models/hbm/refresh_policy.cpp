#include "models/hbm/refresh_policy.h"

#include <limits>

namespace mxc::hbm {

RefreshPolicy::RefreshPolicy(RefreshMode mode, const HbmTiming& t, std::uint32_t banks)
    : m_mode(mode),
      m_interval(mode == RefreshMode::kPerBank ? t.REFIsb : t.REFI),
      m_busy(mode == RefreshMode::kPerBank ? t.RFCsb : t.RFC),
      m_banks(banks),
      m_due(mode == RefreshMode::kNone ? std::numeric_limits<std::uint64_t>::max() : m_interval) {}

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
  m_pending = false;
  ++m_count;
  m_due += m_interval;
  const std::uint64_t lost = cycle - m_pending_since + m_busy;
  if (m_mode == RefreshMode::kPerBank) {
    m_bank = (m_bank + 1) % m_banks;
    return lost;
  }
  return lost * m_banks;
}

}  // namespace mxc::hbm
