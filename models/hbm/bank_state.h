#pragma once
// The controller's own view of one pseudo-channel's device state: open rows
// and, per scope, the earliest cycle each command may issue (with the
// constraint that set it). Updated from the TimingTable on every issue.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/hbm/bank_set.h"
#include "models/hbm/hbm_command.h"
#include "models/hbm/hbm_spec.h"
#include "models/hbm/timing_table.h"

namespace mxc::hbm {

/// The command buses of one channel, shared by its pseudo-channels (JESD235,
/// JESD238): the first cycle each is free again. With no dual command
/// interface there is one bus, and both hold its time.
struct CommandBuses {
  std::uint64_t row = 0, col = 0;
};

class BankState {
 public:
  static constexpr std::int64_t kClosed = -1;

  /// `buses`: the channel's, shared with the other pseudo-channels' states;
  /// nullptr for buses of this pseudo-channel alone.
  BankState(const HbmOrg& org, const HbmTiming& t, bool dual_command, CommandBuses* buses = nullptr);
  BankState(const BankState&) = delete;  // m_group_of points into m_group, m_bus may point at m_own_bus
  BankState& operator=(const BankState&) = delete;
  BankState(BankState&&) = delete;
  BankState& operator=(BankState&&) = delete;

  /// Earliest cycle `cmd` to `bank` satisfies every timing constraint and the
  /// command bus; `why` receives the binding constraint.
  /// With `rules_at`, also the cycle and constraint of the timing rules
  /// alone, without the command bus (the statistics charge a wait up to
  /// there to the rule, the rest to the bus).
  std::uint64_t earliest(Cmd cmd, std::uint32_t bank, Constraint* why = nullptr, std::uint64_t* rules_at = nullptr,
                         Constraint* rules_why = nullptr) const;  // inline, below
  /// earliest() with the constraint found without branches, for callers
  /// where which constraint binds is data (random traffic): branches on it
  /// were mispredicted about a third of the time. Where it repeats
  /// (streaming row hits), earliest()'s branches predict and cost less.
  std::uint64_t earliest_branch_free(Cmd cmd, std::uint32_t bank, Constraint* why, std::uint64_t* rules_at = nullptr,
                                     Constraint* rules_why = nullptr) const;  // inline, below
  /// Earliest column command (`cmd` = RD or WR) over the banks in the set
  /// `want` (bank_set.h) with `!blocked(b)`; ~0 when there are none.
  template <class Blocked>
  std::uint64_t earliest_column(Cmd cmd, std::span<const std::uint64_t> want, Blocked blocked) const {
    const int i = kSlot[static_cast<int>(cmd)];
    const std::uint64_t floor = std::max(m_pc.at[i], col_bus());
    std::uint64_t best = ~std::uint64_t{0};
    for_each_bank(want, [&](std::uint32_t b) {
      if (blocked(b)) return true;
      best = std::min(best, std::max(m_bank[b].at[i], m_group_of[b]->at[i]));
      return best > floor;  // once the floor binds, no other bank can be earlier
    });
    return best == ~std::uint64_t{0} ? best : std::max(best, floor);
  }
  /// earliest() split in two, max of both parts. The part common to every
  /// bank: pseudo-channel scope, tFAW for ACT, the command bus ...
  std::uint64_t earliest_floor(Cmd cmd) const {
    std::uint64_t at = std::max(m_pc.at[kSlot[static_cast<int>(cmd)]], is_column(cmd) ? col_bus() : row_bus());
    if (cmd == Cmd::kAct) at = std::max(at, m_faw_at);
    return at;
  }
  /// ... and the bank and bank-group part.
  std::uint64_t earliest_bank(Cmd cmd, std::uint32_t bank) const { return bank_times(cmd)(bank); }
  /// Record `cmd` issued at `cycle` (caller checked earliest()).
  void issue(Cmd cmd, std::uint32_t bank, std::uint32_t row, std::uint64_t cycle);

  std::int64_t open_row(std::uint32_t bank) const { return m_open[bank]; }
  std::uint32_t open_banks() const { return m_open_count; }
  std::uint32_t bank_group(std::uint32_t bank) const { return bank / m_banks_per_group; }
  /// First cycle the row (column) command bus is free: another
  /// pseudo-channel of the channel may have taken it since this one last
  /// looked.
  std::uint64_t row_bus() const { return m_bus->row; }
  std::uint64_t col_bus() const { return m_bus->col; }

 private:
  // Where each command's earliest cycle is kept: RDA / WRA share RD / WR's
  // (the timing table lists reads and writes together, so it constrains
  // them identically; the constructor checks), which halves the column
  // rules applied per command and leaves 7 slots.
  static constexpr int kSlots = 7;
  static constexpr std::array<std::uint8_t, kNumCmds> kSlot = {0, 1, 2, 3, 4, 3, 4, 5, 6};
  // One scope's earliest cycle of each slot and the constraint that set it:
  // 64 bytes, one cache line.
  struct Times {
    std::array<Constraint, kSlots> why{};
    std::array<std::uint64_t, kSlots> at{};
  };
  // Banks' and groups' slots one cache line each (a slot found by a shift).
  // They took 128 bytes (88 used, 9 slots) before: then every slot's first
  // line fell in the even half of L1's sets.
  struct alignas(64) Next : Times {};
  static_assert(sizeof(Next) == 64);
  static constexpr int kScopes = 3;  // bank, bank group, pseudo-channel (Scope)
  // Which slots each command raises in each scope (bit i: slot i): the
  // timing table's shape, which does not depend on the timing values (the
  // constructor checks). As constants they let each command's rules be
  // applied by straight-line code at fixed offsets instead of a loop over a
  // rule list.
  using Shape = std::array<std::array<std::uint8_t, kScopes>, kNumCmds>;
  static constexpr Shape shape_of(const TimingTable& table) {
    Shape raises{};
    for (int c = 0; c < kNumCmds; ++c)
      for (const TimingEntry& e : table.after(static_cast<Cmd>(c)))
        raises[c][static_cast<int>(e.scope)] |= static_cast<std::uint8_t>(1u << kSlot[static_cast<int>(e.next)]);
    return raises;
  }
  static const Shape kRaises;  // shape_of any table (defined below the class)
  // The slots of PRE and PREA: in the pseudo-channel scope a precharge
  // raises them by tPPD alone (the constructor checks).
  static constexpr std::uint8_t kPrechargeSlots =
      static_cast<std::uint8_t>(1u << kSlot[static_cast<int>(Cmd::kPre)] | 1u << kSlot[static_cast<int>(Cmd::kPreA)]);
  struct Rule {  // the TimingTable's entries of one command, scope and slot, folded
    std::uint32_t cycles;
    Constraint why;
    friend bool operator==(const Rule&, const Rule&) = default;
  };
  // [command][scope][slot], used where kRaises has the slot's bit. One copy
  // per distinct table in the process (intern()): every controller of a
  // model has the same, and one copy stays in L1 where 16 were evicted in
  // turn.
  using Rules = std::array<std::array<std::array<Rule, kSlots>, kScopes>, kNumCmds>;
  static std::shared_ptr<const Rules> intern(const Rules& rules);
  /// Applies one scope's rules (its slots in `Slots`) to its earliest cycles.
  template <std::uint8_t Slots>
  static void raise(Times& n, const std::array<Rule, kSlots>& rules, std::uint64_t cycle);
  /// issue() of one command: its rules at fixed offsets, its command bus,
  /// the row state it changes.
  template <Cmd C>
  void record(std::uint32_t bank, std::uint32_t row, std::uint64_t cycle);

  // Members in the order a step reads them: the pseudo-channel scope, the
  // command buses and the per-bank arrays first, in as few cache lines as
  // they fit (16 controllers' state does not fit in L1, and a step usually
  // starts on a controller whose lines have been evicted).
  Times m_pc;
  CommandBuses* m_bus;  // the channel's, or m_own_bus
  bool m_dual;
  bool m_ppd;  // tPPD > 0: a precharge delays the pseudo-channel's next one
  std::vector<Next> m_bank, m_group;
  // Bank -> its group's slots: one load in the hot path (no division, no
  // index to scale); the reason BankState is not copyable.
  std::vector<Next*> m_group_of;
  // Open row per bank (kClosed when closed) in 4 bytes, so 16 banks' rows
  // share one cache line (the config loader caps rows at 2^30; the
  // constructor checks they fit).
  std::vector<std::int32_t> m_open;
  const Rules* m_rules;  // m_shared.get()
  std::uint32_t m_open_count = 0;
  std::uint32_t m_banks_per_group;
  std::uint32_t m_faw;
  std::uint32_t m_act_bus;  // command-bus cycles an ACT holds (HbmTiming::ACT_cycles)
  std::uint32_t m_act_count = 0;
  std::array<std::uint64_t, 4> m_acts{};  // last four ACT cycles (ring), for tFAW
  // Earliest ACT tFAW allows (the oldest of the last four plus tFAW; 0 before
  // the fourth): kept on issue, read on every row-command timing.
  std::uint64_t m_faw_at = 0;
  std::shared_ptr<const Rules> m_shared;
  CommandBuses m_own_bus;

 public:
  /// earliest_bank() of one command as a function of the bank, with the
  /// lookups common to every bank done once (the scheduler's bank loops).
  class BankTimes {
   public:
    std::uint64_t operator()(std::uint32_t bank) const {
      return std::max(m_bank[bank].at[m_slot], m_group_of[bank]->at[m_slot]);
    }

   private:
    friend class BankState;
    BankTimes(const BankState& s, Cmd cmd)
        : m_bank(s.m_bank.data()), m_group_of(s.m_group_of.data()), m_slot(kSlot[static_cast<int>(cmd)]) {}
    const Next* m_bank;
    const Next* const* m_group_of;
    int m_slot;
  };
  BankTimes bank_times(Cmd cmd) const { return BankTimes(*this, cmd); }
  /// earliest_bank() of the row command a bank needs: PRE when `open`
  /// (its row is), else ACT; the slot chosen by index, so which one it is
  /// costs no branch and only one of the two times is read.
  std::uint64_t row_bank_time(std::uint32_t bank, bool open) const {
    static_assert(kSlot[static_cast<int>(Cmd::kAct)] == 0 && kSlot[static_cast<int>(Cmd::kPre)] == 1);
    return std::max(m_bank[bank].at[open], m_group_of[bank]->at[open]);
  }
};

inline constexpr BankState::Shape BankState::kRaises = [] {
  const TimingTable table(HbmTiming{});
  return shape_of(table);
}();

// Both always inline (GCC kept them out of line): every command is timed
// here, and the callers that ask for no constraint drop that part.
[[gnu::always_inline]] inline std::uint64_t BankState::earliest(Cmd cmd, std::uint32_t bank, Constraint* why,
                                                              std::uint64_t* rules_at, Constraint* rules_why) const {
  const int i = kSlot[static_cast<int>(cmd)];
  const Next& b = m_bank[bank];
  const Next& g = *m_group_of[bank];
  const std::uint64_t bus = is_column(cmd) ? col_bus() : row_bus();
  std::uint64_t at = b.at[i];
  Constraint w = b.why[i];
  if (g.at[i] > at) at = g.at[i], w = g.why[i];
  if (m_pc.at[i] > at) at = m_pc.at[i], w = m_pc.why[i];
  if (cmd == Cmd::kAct && m_faw_at > at) at = m_faw_at, w = Constraint::kFAW;
  if (rules_at) *rules_at = at, *rules_why = w;
  if (bus > at) at = bus, w = Constraint::kCmdBus;
  if (why) *why = w;
  return at;
}

[[gnu::always_inline]] inline std::uint64_t BankState::earliest_branch_free(Cmd cmd, std::uint32_t bank,
                                                                          Constraint* why, std::uint64_t* rules_at,
                                                                          Constraint* rules_why) const {
  // The binding constraint is the first of bank, group, pseudo-channel,
  // tFAW and command bus with the latest time: one maximum over
  // (time << 3 | rank), rank 4 for the bank down to 0 for the bus, which
  // compiles to conditional moves. Cycles stay below 2^61 (tCK is at least
  // 16 ps, the config loader checks).
  const int i = kSlot[static_cast<int>(cmd)];
  const Next& b = m_bank[bank];
  const Next& g = *m_group_of[bank];
  const std::uint64_t bus = is_column(cmd) ? col_bus() : row_bus();
  std::uint64_t rules = std::max({b.at[i] << 3 | 4, g.at[i] << 3 | 3, m_pc.at[i] << 3 | 2});
  if (cmd == Cmd::kAct) rules = std::max(rules, m_faw_at << 3 | 1);
  const std::uint64_t key = std::max(rules, bus << 3);
  const std::array<Constraint, 5> by_rank = {Constraint::kCmdBus, Constraint::kFAW, m_pc.why[i], g.why[i], b.why[i]};
  if (why) *why = by_rank[key & 7];
  if (rules_at) *rules_at = rules >> 3, *rules_why = by_rank[rules & 7];
  return key >> 3;
}

template <std::uint8_t Slots>
inline void BankState::raise(Times& n, const std::array<Rule, kSlots>& rules, std::uint64_t cycle) {
  for (int i = 0; i < kSlots; ++i) {  // unrolled: `Slots` is a constant
    if (!((Slots >> i) & 1)) continue;
    const std::uint64_t at = cycle + rules[i].cycles;
    if (at > n.at[i]) {
      n.at[i] = at;
      n.why[i] = rules[i].why;
    }
  }
}

// Always inline: once an ACT's bus cycles became a member, GCC kept
// record<RD> out of line, 2 % more instructions on sequential reads.
template <Cmd C>
[[gnu::always_inline]] inline void BankState::record(std::uint32_t bank, [[maybe_unused]] std::uint32_t row,
                                                     std::uint64_t cycle) {
  constexpr int c = static_cast<int>(C);
  const auto& rules = (*m_rules)[c];
  raise<kRaises[c][0]>(m_bank[bank], rules[0], cycle);
  raise<kRaises[c][1]>(*m_group_of[bank], rules[1], cycle);
  if constexpr (C == Cmd::kPre || C == Cmd::kPreA) {
    // A tPPD of 0 (HBM2, HBM2E) is no rule: raised, it would allow the next
    // precharge from this cycle, which changes no time, but name tPPD for
    // waits the row bus and other rules cause.
    if (m_ppd) raise<kRaises[c][2]>(m_pc, rules[2], cycle);
    else raise<kRaises[c][2] & ~kPrechargeSlots>(m_pc, rules[2], cycle);
  } else {
    raise<kRaises[c][2]>(m_pc, rules[2], cycle);
  }
  const std::uint64_t bus_free = cycle + (C == Cmd::kAct ? m_act_bus : 1);
  if (!m_dual)
    m_bus->row = m_bus->col = bus_free;  // one bus for all commands
  else if constexpr (is_column(C))
    m_bus->col = bus_free;
  else
    m_bus->row = bus_free;

  if constexpr (C == Cmd::kAct) {
    m_acts[m_act_count % 4] = cycle;
    ++m_act_count;
    if (m_act_count >= 4) m_faw_at = m_acts[m_act_count % 4] + m_faw;
    if (m_open[bank] == kClosed) ++m_open_count;
    m_open[bank] = static_cast<std::int32_t>(row);
  } else if constexpr (C == Cmd::kPre || C == Cmd::kRdA || C == Cmd::kWrA) {
    if (m_open[bank] != kClosed) --m_open_count;
    m_open[bank] = kClosed;
  } else if constexpr (C == Cmd::kPreA) {
    std::fill(m_open.begin(), m_open.end(), static_cast<std::int32_t>(kClosed));
    m_open_count = 0;
  }
}

// Inline into the callers (the call cost about 12 instructions a command):
// those that know the command's range drop the other cases.
[[gnu::always_inline]] inline void BankState::issue(Cmd cmd, std::uint32_t bank, std::uint32_t row,
                                                    std::uint64_t cycle) {
  switch (cmd) {
    case Cmd::kAct: record<Cmd::kAct>(bank, row, cycle); break;
    case Cmd::kPre: record<Cmd::kPre>(bank, row, cycle); break;
    case Cmd::kPreA: record<Cmd::kPreA>(bank, row, cycle); break;
    case Cmd::kRd: record<Cmd::kRd>(bank, row, cycle); break;
    case Cmd::kWr: record<Cmd::kWr>(bank, row, cycle); break;
    case Cmd::kRdA: record<Cmd::kRdA>(bank, row, cycle); break;
    case Cmd::kWrA: record<Cmd::kWrA>(bank, row, cycle); break;
    case Cmd::kRefAb: record<Cmd::kRefAb>(bank, row, cycle); break;
    case Cmd::kRefSb: record<Cmd::kRefSb>(bank, row, cycle); break;
  }
}

}  // namespace mxc::hbm
