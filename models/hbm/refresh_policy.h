#pragma once
// When a pseudo-channel must refresh and which command refresh needs next:
// all-bank (REFab every tREFI, after precharging every bank) or per-bank
// (REFsb to one bank every tREFIsb, round robin, others keep working).
// A busy controller may postpone all-bank refreshes (up to `postpone`
// owed; per-bank ones never): the refresh that falls due with that many
// owed issues them all back to back, so a stream drains and restarts its
// banks once for the lot; an idle one catches up at once.
#include <cstdint>
#include <span>
#include <vector>

#include "models/hbm/bank_state.h"
#include "models/hbm/hbm_config.h"

namespace mxc::hbm {

class RefreshPolicy {
 public:
  RefreshPolicy(RefreshMode mode, const HbmTiming& t, std::uint32_t banks, std::uint32_t postpone = 0);

  /// Cycle the next refresh falls due (kNoCycle with refresh off).
  std::uint64_t next_due() const { return m_due; }
  bool pending() const { return m_pending; }
  /// Refreshes postponed and not issued yet.
  std::uint32_t owed() const { return m_owed; }
  /// Marks refresh pending once `cycle` reaches its due time, unless the
  /// controller is `busy` and may owe one more (counted in `postponed`);
  /// or while it owes some and is idle. Inline: it runs on every
  /// controller step.
  void update(std::uint64_t cycle, bool busy, std::uint64_t& postponed) {
    if (m_pending) return;
    if (cycle >= m_due) {
      if (busy && m_owed < m_postpone) [[unlikely]] {
        ++postponed;
        ++m_owed;
        m_due += m_interval;
        return;
      }
      m_pending = m_for_due = true;
      m_pending_since = cycle;
    } else if (m_owed != 0 && !busy) [[unlikely]] {
      m_pending = true;
      m_pending_since = cycle;
    }
  }
  /// Whether requests to `bank` must wait for the pending refresh.
  bool blocks(std::uint32_t bank) const {
    return m_pending && (m_mode == RefreshMode::kAllBank || bank == m_bank);
  }
  /// A refresh's blocking span of a bank: from when it fell due (owed ones
  /// issued back to back are one span) to its tRFC or tRFCsb after it.
  struct Span {
    std::uint64_t start = 0, end = 0;
  };
  /// The last refresh's span of `bank` (all-bank refresh: of every bank).
  const Span& span(std::uint32_t bank) const { return m_spans[bank]; }
  /// Whether `bank` is held by refresh at `cycle`: its pending refresh, or
  /// the last one issued to it still running. The oldest burst is not
  /// bypassed then, nor starving: others go first for want of it, not
  /// before it (a per-bank refresh stalled the whole pseudo-channel).
  bool refreshing(std::uint32_t bank, std::uint64_t cycle) const {
    return blocks(bank) || cycle < m_spans[bank].end;
  }
  /// Word `w` of bank set `set` (bank_set.h) without the banks that must
  /// wait for the pending refresh: blocks() for 64 banks at once.
  std::uint64_t unblocked(std::span<const std::uint64_t> set, std::size_t w) const {
    if (!m_pending) return set[w];
    if (m_mode == RefreshMode::kAllBank) return 0;
    return w == m_bank / 64 ? set[w] & ~(std::uint64_t{1} << (m_bank % 64)) : set[w];
  }
  /// The command refresh needs next (given the open rows).
  void wanted(const BankState& state, Cmd* cmd, std::uint32_t* bank) const;
  /// Call after issuing a refresh-related command; returns the bank-cycles
  /// the refresh made unavailable (for statistics) when it was a REF.
  std::uint64_t on_issue(Cmd cmd, std::uint64_t cycle);

  std::uint64_t refreshes() const { return m_count; }

  /// Whether the refreshes of an idle controller (no bursts, every bank
  /// closed) each issue at their due cycle once one has: one refresh never
  /// delays the next (tRFC < tREFI; per bank tRREFD < tREFIsb and tRFCsb
  /// < banks x tREFIsb). Then skip() may stand for them.
  bool idle_refreshes_on_time(const HbmTiming& t) const {
    if (m_mode == RefreshMode::kAllBank) return t.RFC < m_interval;
    if (m_mode == RefreshMode::kPerBank) return t.RREFD < m_interval && t.RFCsb < m_interval * m_banks;
    return false;
  }
  /// The next `n` refreshes, issued `late` cycles after their due cycles
  /// in all, the last at cycle `last`, as on_issue() would record them;
  /// returns the bank-cycles they made unavailable.
  std::uint64_t skip(std::uint64_t n, std::uint64_t late, std::uint64_t last) {
    m_count += n;
    m_due += n * m_interval;
    if (m_mode == RefreshMode::kPerBank) {
      m_bank = static_cast<std::uint32_t>((m_bank + n) % m_banks);
      m_spans[(m_bank + m_banks - 1) % m_banks] = Span{last, last + m_busy};
      return n * m_busy + late;
    }
    m_spans.assign(m_spans.size(), Span{last, last + m_busy});
    return (n * m_busy + late) * m_banks;
  }
  std::uint64_t interval() const { return m_interval; }
  /// Refreshes that set a bank's refresh state (the bank-scope timing): one
  /// per bank in a per-bank round, all banks at once otherwise.
  std::uint32_t round() const { return m_mode == RefreshMode::kPerBank ? m_banks : 1; }

 private:
  RefreshMode m_mode;
  std::uint64_t m_interval;
  std::uint64_t m_busy;  // tRFC or tRFCsb
  std::uint32_t m_banks;
  std::uint64_t m_due;
  std::uint64_t m_pending_since = 0;
  std::uint32_t m_bank = 0;  // per-bank: the bank refreshed next
  std::uint32_t m_postpone;  // refreshes a busy controller may owe
  std::uint32_t m_owed = 0;  // postponed, not issued (m_due already past them)
  bool m_pending = false;
  bool m_for_due = false;  // the pending refresh is the one due at m_due, not an owed one
  std::uint64_t m_count = 0;
  std::vector<Span> m_spans;  // per bank: its last refresh's span
};

}  // namespace mxc::hbm
