#pragma once
// Independent JEDEC timing checker. Sees every command a controller issues
// and verifies each constraint from the device spec with its own history of
// past commands; it shares no code or state with the scheduler's
// bookkeeping (BankState / TimingTable), so a bug there cannot hide itself.
#include <cstdint>
#include <string>
#include <vector>

#include "models/hbm/hbm_command.h"
#include "models/hbm/hbm_spec.h"

namespace mxc::hbm {

class TimingChecker {
 public:
  /// `dual_command`: one row and one column command may share a cycle;
  /// `shared_buses`: the pseudo-channels of a channel share its command
  /// buses (else each has its own).
  TimingChecker(const HbmDeviceSpec& spec, std::uint32_t pseudo_channels, bool dual_command, bool shared_buses = true);

  /// Checks one command (cycles must not decrease per channel: its
  /// pseudo-channels share the command buses).
  void on_command(std::uint32_t pc, const DramCommand& c);
  /// Whether `c` would meet every rule on_command() checks of a command
  /// (the refresh-interval rule, which is about the run and not the
  /// command, aside), given the commands seen so far; records nothing.
  bool legal(std::uint32_t pc, const DramCommand& c) const;
  /// End of run at `cycle`: every bank must have been refreshed often enough.
  void finish(std::uint64_t cycle);
  /// Turns off the refresh-interval rule (runs with refresh disabled on purpose).
  void set_check_refresh(bool on) { m_check_refresh = on; }

  std::uint64_t commands() const { return m_commands; }
  std::uint64_t violation_count() const { return m_violation_count; }
  /// The first violations, e.g. "pc 3 cycle 120: RD bank 2: tRCD needs 14, got 10".
  const std::vector<std::string>& violations() const { return m_violations; }

 private:
  static constexpr std::int64_t kLongAgo = -(std::int64_t{1} << 40);
  struct Bank {
    std::int64_t open_row = -1;
    std::int64_t act = kLongAgo, rd = kLongAgo, wr = kLongAgo;
    std::int64_t closed_at = kLongAgo;  // when the row closed (precharge start)
    std::int64_t refsb = kLongAgo;
    std::uint64_t refreshes = 0;
  };
  struct DataBurst {
    std::int64_t start, end;  // cycles [start, end) on the data bus
    bool read;
  };
  struct Pc {
    std::vector<Bank> banks;
    std::vector<DataBurst> data;  // bursts whose data is not over yet
    std::vector<std::int64_t> group_act, group_rd, group_wr;
    std::int64_t act = kLongAgo, rd = kLongAgo, wr = kLongAgo, refab = kLongAgo, refsb = kLongAgo;
    std::int64_t pre = kLongAgo;  // the last PRE or PREA (tPPD)
    std::int64_t acts4[4] = {kLongAgo, kLongAgo, kLongAgo, kLongAgo};
    std::uint32_t act_n = 0;
  };

  /// At least `gap` cycles since `since` (inline: a dozen rules per command, all passing in a
  /// correct run; the report is built out of line).
  void need(std::uint32_t pc, const DramCommand& c, const char* rule, std::int64_t since, std::int64_t gap) {
    const std::int64_t got = static_cast<std::int64_t>(c.cycle) - since;
    if (got < gap) [[unlikely]] fail_gap(pc, c, rule, gap, got);
  }
  [[gnu::cold]] void fail_gap(std::uint32_t pc, const DramCommand& c, const char* rule, std::int64_t gap,
                              std::int64_t got);
  void fail(std::uint32_t pc, const DramCommand& c, const std::string& what);
  void report(std::string violation);
  /// Evaluates every rule of command `c` against the history: reports
  /// each breach and records the command (`kRecord`, on_command()), or
  /// only returns whether all hold, writing nothing (legal()).
  template <bool kRecord>
  bool apply(std::uint32_t pc, const DramCommand& c);
  /// A column command at `now` whose data occupies the bus from `start`:
  /// no other burst's data may be on it then.
  template <bool kRecord, class Fail>
  void check_data_bus(std::uint32_t pc, std::int64_t now, std::int64_t start, bool read, Fail&& fail);
  /// Whether each bank of `pc` has had the refreshes due by `cycle` but
  /// for 8 postponed (`late_at`), and no more than 8 pulled in (`early_at`).
  /// A refresh checks the first before it counts: a bank that owes 9 owed
  /// them from the due cycle that made it 9, however soon the refresh
  /// follows (checked after counting it, a gap of almost 10 x tREFI passed).
  void check_refresh_rate(std::uint32_t pc, std::uint64_t cycle, bool late_at, bool early_at);
  void close_row(Bank& b, std::int64_t at);

  struct Buses {  // a channel's command buses, shared by its pseudo-channels
    std::int64_t row_free = kLongAgo, col_free = kLongAgo;  // first cycle each is free
    std::int64_t last = kLongAgo;  // the channel's last command
  };

  HbmDeviceSpec m_spec;
  bool m_dual;
  bool m_check_refresh = true;
  std::vector<Pc> m_pcs;
  std::uint32_t m_bus_group;  // pseudo-channels per set of buses: pseudo_channels when shared, else 1
  std::vector<Buses> m_channels;  // pseudo-channel pc uses buses pc / m_bus_group
  std::uint64_t m_commands = 0;
  std::uint64_t m_violation_count = 0;
  std::vector<std::string> m_violations;
};

}  // namespace mxc::hbm
