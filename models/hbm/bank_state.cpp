#include "models/hbm/bank_state.h"

#include <algorithm>

namespace mxc::hbm {

BankState::BankState(const HbmOrg& org, const HbmTiming& t, bool dual_command)
    : m_table(t),
      m_banks_per_group(org.banks_per_group),
      m_faw(t.FAW),
      m_dual(dual_command),
      m_bank(org.banks()),
      m_group(org.bank_groups),
      m_open(org.banks(), kClosed) {}

void BankState::raise(Next& n, Cmd c, std::uint64_t at, Constraint why) {
  const int i = static_cast<int>(c);
  if (at > n.at[i]) {
    n.at[i] = at;
    n.why[i] = why;
  }
}

void BankState::issue(Cmd cmd, std::uint32_t bank, std::uint32_t row, std::uint64_t cycle) {
  const std::uint32_t group = bank / m_banks_per_group;
  for (const TimingEntry& e : m_table.after(cmd)) {
    const std::uint64_t at = cycle + e.cycles;
    switch (e.scope) {
      case Scope::kBank: raise(m_bank[bank], e.next, at, e.why); break;
      case Scope::kBankGroup: raise(m_group[group], e.next, at, e.why); break;
      case Scope::kPseudoChannel: raise(m_pc, e.next, at, e.why); break;
    }
  }
  if (!m_dual)
    m_row_bus = m_col_bus = cycle + 1;  // one shared command bus
  else if (is_column(cmd))
    m_col_bus = cycle + 1;
  else
    m_row_bus = cycle + 1;

  switch (cmd) {
    case Cmd::kAct:
      m_acts[m_act_count % 4] = cycle;
      ++m_act_count;
      if (m_open[bank] == kClosed) ++m_open_count;
      m_open[bank] = row;
      break;
    case Cmd::kPre:
    case Cmd::kRdA:
    case Cmd::kWrA:
      if (m_open[bank] != kClosed) --m_open_count;
      m_open[bank] = kClosed;
      break;
    case Cmd::kPreA:
      std::fill(m_open.begin(), m_open.end(), kClosed);
      m_open_count = 0;
      break;
    default: break;
  }
}

}  // namespace mxc::hbm
