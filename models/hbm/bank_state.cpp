#include "models/hbm/bank_state.h"

#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
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

std::shared_ptr<const BankState::Rules> BankState::intern(const Rules& rules) {
  // Models may be built on several threads (co-simulation); the list only
  // grows by one entry per distinct timing table.
  static std::mutex mutex;
  static std::vector<std::shared_ptr<const Rules>> known;
  const std::lock_guard<std::mutex> lock(mutex);
  for (const auto& k : known)
    if (*k == rules) return k;
  known.push_back(std::make_shared<const Rules>(rules));
  return known.back();
}

BankState::BankState(const HbmOrg& org, const HbmTiming& t, bool dual_command, CommandBuses* buses)
    : m_bus(buses ? buses : &m_own_bus),
      m_dual(dual_command),
      m_ppd(t.PPD > 0),
      m_bank(org.banks()),
      m_group(org.bank_groups),
      m_open(org.banks(), static_cast<std::int32_t>(kClosed)),
      m_banks_per_group(org.banks_per_group),
      m_faw(t.FAW),
      m_act_bus(t.ACT_cycles) {
  if (org.rows > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max()))
    throw std::invalid_argument("BankState: " + std::to_string(org.rows) +
                                " rows per bank do not fit its 31-bit row numbers");
  const TimingTable table(t);  // only needed to build the rules
  if (!same_constraints(table, Cmd::kRd, Cmd::kRdA) || !same_constraints(table, Cmd::kWr, Cmd::kWrA))
    throw std::logic_error("BankState: the timing table constrains RDA / WRA unlike RD / WR");
  if (shape_of(table) != kRaises) throw std::logic_error("BankState: the timing table's shape depends on its values");
  // record() leaves a precharge's pseudo-channel-scope precharge slots alone
  // when tPPD is 0: nothing but tPPD may be kept there.
  for (const Cmd pre : {Cmd::kPre, Cmd::kPreA})
    for (const TimingEntry& e : table.after(pre))
      if (e.scope == Scope::kPseudoChannel && (e.next == Cmd::kPre || e.next == Cmd::kPreA) &&
          e.why != Constraint::kPPD)
        throw std::logic_error("BankState: a precharge constrains the next one by more than tPPD");
  Rules r{};
  Shape seen{};  // the rules set so far
  for (int c = 0; c < kNumCmds; ++c) {
    for (const TimingEntry& e : table.after(static_cast<Cmd>(c))) {
      const int scope = static_cast<int>(e.scope), slot = kSlot[static_cast<int>(e.next)];
      const auto bit = static_cast<std::uint8_t>(1u << slot);
      // RDA / WRA share RD / WR's slot and rules.
      if (e.next == Cmd::kRdA || e.next == Cmd::kWrA) continue;
      // Entries of one scope for the same next command fold into one: the
      // longest wait, the first listed on ties (applying them in turn had
      // the same outcome).
      Rule& rule = r[c][scope][slot];
      if (!(seen[c][scope] & bit) || e.cycles > rule.cycles) rule = {e.cycles, e.why};
      seen[c][scope] |= bit;
    }
  }
  m_shared = intern(r);
  m_rules = m_shared.get();
  for (std::uint32_t b = 0; b < org.banks(); ++b) m_group_of.push_back(&m_group[b / m_banks_per_group]);
}

}  // namespace mxc::hbm
