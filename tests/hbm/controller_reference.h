#pragma once
// A deliberately plain pseudo-channel controller, written from docs/hbm.md
// ("Controller", "Refresh postponement") for the tests to hold the model's
// controllers against: it looks at every cycle, keeps its bursts in plain
// lists in arrival order and asks the independent TimingChecker whether a
// command may issue, sharing none of the model's scheduler, bank state,
// queue or timing table. It serves every pseudo-channel of one stack
// (each channel's command buses shared or not, as the config says). It
// also counts the statistics docs/hbm.md defines ("Statistics"), each by
// its definition, for the tests to hold the model's PcStats against.
#include <cstdint>
#include <map>
#include <vector>

#include "models/hbm/address_mapper.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/timing_checker.h"

namespace mxc::hbm::test {

class ControllerReference {
 public:
  /// One pseudo-channel's statistics, as docs/hbm.md defines them.
  struct Stats {
    std::uint64_t read_bursts = 0, write_bursts = 0;  // column commands
    // By the burst's first command: a column command (hit), an ACT (miss) or a PRE (conflict).
    std::uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0;
    std::uint64_t acts = 0, pres = 0;  // pres: PRE and PREA commands (not auto-precharges)
    std::uint64_t refreshes = 0;       // REFab and REFsb commands
    std::uint64_t refreshes_postponed = 0;
    /// Bank-cycles held by refresh: each bank from its refresh becoming
    /// pending to the end of its tRFC / tRFCsb, counted at the REF.
    std::uint64_t refresh_bank_cycles = 0;
    /// Sum over the bursts of (column command cycle - cycle queued).
    std::uint64_t read_queue_integral = 0, write_queue_integral = 0;
    std::vector<std::uint64_t> bank_acts;
    /// Data-bus idle cycles, all causes: from cycle 0 to the last column
    /// command, the cycles no column command's burst slot covers.
    std::uint64_t bus_idle_cycles = 0;
    std::uint64_t bus_free = 0;  // the cycle after the last column command's burst slot
  };

  /// `pcs`: the pseudo-channels served (numbered as the model numbers them).
  ControllerReference(const MemoryConfig& cfg, std::uint32_t pcs);

  /// Whether pseudo-channel `pc`'s queue of that direction has room for `n` more bursts.
  bool can_accept(std::uint32_t pc, bool write, std::uint32_t n) const;
  /// Request `id`'s bursts, accepted in cycle `cycle` (after that cycle's
  /// steps; they may be scheduled frontend_cycles later).
  void accept(std::uint64_t id, const std::vector<BurstTarget>& bursts, bool write, std::uint64_t cycle);
  /// Steps every cycle up to and including `cycle`.
  void run_until(std::uint64_t cycle);
  /// The last cycle stepped.
  std::uint64_t clock() const { return m_next - 1; }

  /// Commands of pseudo-channel `pc` in issue order.
  const std::vector<DramCommand>& commands(std::uint32_t pc) const { return m_pcs[pc].issued; }
  /// Requests whose every burst issued, by id: the cycle their data is delivered.
  const std::map<std::uint64_t, std::uint64_t>& completions() const { return m_done; }
  /// Bursts queued, all pseudo-channels.
  std::uint64_t queued() const;
  const TimingChecker& checker() const { return m_checker; }
  /// Pseudo-channel `pc`'s statistics so far.
  const Stats& stats(std::uint32_t pc) const { return m_pcs[pc].stats; }
  /// All-bank refreshes pseudo-channel `pc` has postponed and not issued yet.
  std::uint32_t owed(std::uint32_t pc) const { return m_pcs[pc].refresh.owed; }

 private:
  struct Burst {
    std::uint64_t id;       // the request
    std::uint64_t arrival;  // first cycle it may be scheduled
    std::uint32_t bank, row, col;
    std::uint64_t queued;    // the cycle it was accepted in (queue occupancy counts from it)
    Cmd first = Cmd::kRd;    // its first row command (ACT or PRE); kRd while none
  };
  struct Refresh {
    std::uint64_t due = 0;
    std::uint32_t owed = 0;
    bool pending = false, for_due = false;
    std::uint32_t bank = 0;            // per-bank: refreshed next
    std::uint64_t since = 0;           // the cycle the pending refresh became pending
    std::vector<std::uint64_t> until;  // per bank: end of its last refresh's tRFC / tRFCsb
  };
  struct Pc {
    std::vector<Burst> reads, writes;                       // arrival order
    std::uint32_t bypassed_reads = 0, bypassed_writes = 0;  // the oldest burst's bypasses
    bool write_mode = false;
    std::vector<std::int64_t> open;  // per bank, -1 closed
    Refresh refresh;
    std::vector<DramCommand> issued;
    Stats stats;
  };

  void step(std::uint32_t pc, std::uint64_t c);
  void update_refresh(Pc& p, std::uint64_t c);
  bool blocks(const Pc& p, std::uint32_t bank) const;
  bool refreshing(const Pc& p, std::uint32_t bank, std::uint64_t c) const;
  /// Queued bursts of `q` on bank's open row.
  static std::uint32_t hits(const Pc& p, const std::vector<Burst>& q, std::uint32_t bank);
  bool legal(std::uint32_t pc, Cmd cmd, std::uint32_t bank, std::uint32_t row, std::uint64_t c) const;
  void issue(std::uint32_t pc, Cmd cmd, std::uint32_t bank, std::uint32_t row, std::uint32_t col, std::uint64_t c);
  void issue_column(std::uint32_t pc, std::size_t i, std::uint64_t c);

  MemoryConfig m_cfg;
  std::uint32_t m_turns;  // pseudo-channels sharing a set of buses (1 when each has its own)
  TimingChecker m_checker;
  std::vector<Pc> m_pcs;
  std::uint64_t m_next = 0;                            // next cycle to step
  std::map<std::uint64_t, std::uint32_t> m_remaining;  // bursts not issued, per request
  std::map<std::uint64_t, std::uint64_t> m_latest;     // latest data delivery so far, per request
  std::map<std::uint64_t, std::uint64_t> m_done;
};

}  // namespace mxc::hbm::test
