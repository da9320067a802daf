#include "models/hbm/bank_state.h"

#include <algorithm>
#include <tuple>

namespace mxc::hbm {

namespace {
// Whether every earlier command constrains `a` and `b` by the same entries.
bool same_constraints(const TimingTable& table, Cmd a, Cmd b) {
  for (int p = 0; p < kNumCmds; ++p) {
    std::vector<std::tuple<Scope, std::uint32_t, Constraint>> ea, eb;
    for (const TimingEntry& e : table.after(static_cast<Cmd>(p))) {
      if (e.next == a) ea.emplace_back(e.scope, e.cycles, e.why);
      if (e.next == b) eb.emplace_back(e.scope, e.cycles, e.why);
    }
    if (ea != eb) return false;
  }
  return true;
}
}  // namespace

BankState::BankState(const HbmOrg& org, const HbmTiming& t, bool dual_command)
    : m_dual(dual_command),
      m_bank(org.banks()),
      m_group(org.bank_groups),
      m_open(org.banks(), kClosed),
      m_banks_per_group(org.banks_per_group),
      m_faw(t.FAW) {
  const TimingTable table(t);  // only needed to build the rules
  const bool alias = same_constraints(table, Cmd::kRd, Cmd::kRdA) && same_constraints(table, Cmd::kWr, Cmd::kWrA);
  for (int c = 0; c < kNumCmds; ++c) {
    m_slot[c] = static_cast<std::uint8_t>(c);
    if (alias && c == static_cast<int>(Cmd::kRdA)) m_slot[c] = static_cast<std::uint8_t>(Cmd::kRd);
    if (alias && c == static_cast<int>(Cmd::kWrA)) m_slot[c] = static_cast<std::uint8_t>(Cmd::kWr);
  }
  for (int c = 0; c < kNumCmds; ++c) {
    for (int scope = 0; scope < 3; ++scope) {
      m_rule_at[c][scope] = static_cast<std::uint16_t>(m_rules.size());
      for (const TimingEntry& e : table.after(static_cast<Cmd>(c))) {
        if (static_cast<int>(e.scope) != scope || m_slot[static_cast<int>(e.next)] != static_cast<std::uint8_t>(e.next))
          continue;
        // Entries of one scope for the same next command fold into one: the
        // longest wait, the first listed on ties (raise() applied them in
        // turn with the same outcome).
        const auto first = m_rules.begin() + m_rule_at[c][scope];
        const auto next = static_cast<std::uint8_t>(e.next);
        const auto same = std::find_if(first, m_rules.end(), [&](const Rule& r) { return r.next == next; });
        if (same == m_rules.end()) m_rules.push_back({next, e.why, e.cycles});
        else if (e.cycles > same->cycles) same->cycles = e.cycles, same->why = e.why;
      }
    }
    m_rule_at[c][3] = static_cast<std::uint16_t>(m_rules.size());
  }
  for (std::uint32_t b = 0; b < org.banks(); ++b) m_group_of.push_back(b / m_banks_per_group);
}

}  // namespace mxc::hbm
