#pragma once
// Independent JEDEC-rule checker for one pseudo-channel. It sees every
// command issued and re-derives each constraint from the command history
// (last ACT/RD/WR/PRE per bank, per bank group, the last four ACTs, refresh
// counts), sharing nothing with the scheduler's TimingTable, so a bug in the
// scheduler's bookkeeping shows up here as a violation.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "models/hbm/dram_command.h"
#include "models/hbm/hbm_config.h"

namespace mxc {

struct TimingViolation {
  DramCommand command;
  std::string rule;    ///< e.g. "tRCD"
  std::string detail;  ///< Human-readable explanation with the cycles involved.
};

class TimingChecker {
 public:
  TimingChecker(const HbmSpec& spec, RefreshMode refresh);

  /// Checks and records one command; commands must come in cycle order.
  void observe(const DramCommand& c);
  /// Checks that refresh has kept pace up to `cycle` (call at the end of a run).
  void finish(std::uint64_t cycle);

  const std::vector<TimingViolation>& violations() const { return m_violations; }
  std::uint64_t commands_seen() const { return m_seen; }

  /// JEDEC lets a controller postpone at most this many refreshes.
  static constexpr std::uint64_t kMaxPostponed = 8;

 private:
  struct Bank {
    bool open = false;
    std::uint32_t row = 0;
    std::optional<std::uint64_t> act, pre, rd, wr, ref;
    std::uint64_t refreshes = 0;
  };
  Bank& bank(const DramCommand& c) { return m_banks[c.bg * m_spec.org.banks_per_group + c.bank]; }
  void need(const DramCommand& c, const std::optional<std::uint64_t>& since, std::uint64_t gap, const char* rule,
            const char* after);
  void check_refresh_pace(const DramCommand& at, std::uint64_t cycle);
  void violation(const DramCommand& c, const std::string& rule, const std::string& detail);

  HbmSpec m_spec;
  RefreshMode m_refresh;
  std::vector<Bank> m_banks;
  std::vector<std::optional<std::uint64_t>> m_group_rd, m_group_wr, m_group_act;
  std::optional<std::uint64_t> m_last_rd, m_last_refab, m_last_cycle;
  std::deque<std::uint64_t> m_recent_acts;  // at most four
  std::uint64_t m_refab_count = 0;
  std::uint64_t m_seen = 0;
  std::vector<TimingViolation> m_violations;
};

}  // namespace mxc
