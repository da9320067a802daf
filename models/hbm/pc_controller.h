#pragma once
// The controller of one pseudo-channel: read and write queues, FR-FCFS
// scheduling, open or closed page, write draining between watermarks, refresh.
// Works in HBM clock cycles and is event-driven: after each step it computes
// the next cycle at which anything can happen (a command becomes legal, a
// burst completes, refresh falls due) and sleeps until then.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "models/hbm/bank_state.h"
#include "models/hbm/burst_queue.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_stats.h"
#include "models/hbm/queue_entry.h"
#include "models/hbm/refresh_policy.h"
#include "models/hbm/scheduler.h"

namespace mxc::hbm {

class TimingChecker;

/// Counts, per request (HbmModel's slot), the bursts whose column command
/// has not issued yet and the cycle by which the issued ones' data will have
/// been delivered; completion times are known at issue, so only whole
/// requests become events, never single bursts. HbmModel owns it and
/// collects the finished requests after running the controllers. Not
/// virtual and inline: every column command reports here.
class BurstSink {
 public:
  /// Request `slot` was accepted with `bursts` bursts.
  void start(std::uint32_t slot, std::uint32_t bursts) {
    if (slot >= m_track.size()) m_track.resize(slot + 1);
    m_track[slot] = Track{0, bursts};
  }
  void burst_issued(std::uint32_t slot, std::uint64_t done_cycle) {
    Track& t = m_track[slot];
    t.done_cycle = std::max(t.done_cycle, done_cycle);
    if (--t.remaining == 0) m_finished.push_back(slot);
  }
  /// Requests whose last burst issued since the last clear, in issue order.
  const std::vector<std::uint32_t>& finished() const { return m_finished; }
  void clear_finished() { m_finished.clear(); }
  /// When request `slot`'s last burst's data will have been delivered.
  std::uint64_t done_cycle(std::uint32_t slot) const { return m_track[slot].done_cycle; }

 private:
  struct Track {
    std::uint64_t done_cycle;  // latest data-delivered cycle so far
    std::uint32_t remaining;   // bursts not yet issued
  };
  std::vector<Track> m_track;
  std::vector<std::uint32_t> m_finished;
};

class PcController {
 public:
  /// `buses`: its channel's command buses, shared with the channel's other
  /// pseudo-channels (nullptr: buses of its own). Pseudo-channel `id` is
  /// number id % pseudo_channels of its channel.
  PcController(std::uint32_t id, const MemoryConfig& cfg, BurstSink& sink, TimingChecker* checker,
               CommandBuses* buses = nullptr);

  /// Called with every command this controller issues (pc, command); for
  /// timelines. The function must outlive the controller.
  using CommandObserver = std::function<void(std::uint32_t, const DramCommand&)>;
  /// Call again when the function changes (the controller notes once
  /// whether commands are shown to anyone).
  void set_observer(const CommandObserver* observer) {
    m_observer = observer;
    m_notify = m_checker || (observer && *observer);
  }

  /// Room for `n` more bursts of this direction.
  bool can_accept(bool write, std::uint32_t n) const {
    return (write ? m_writes.size() : m_reads.size()) + n <= (write ? m_write_cap : m_read_cap);
  }
  /// Queue depth of one direction.
  std::uint32_t capacity(bool write) const { return write ? m_write_cap : m_read_cap; }
  /// Cycles from a read's or a write's column command to its data
  /// delivered (latency + burst + backend).
  std::uint32_t done_cycles(bool write) const { return write ? m_write_done : m_read_done; }
  /// Queue bursts [first, last) of request `slot` (anything with bank, row
  /// and col), offered at `cycle` (schedulable frontend_cycles later), the
  /// controllers having been run up to the cycle before `next_step`. They
  /// are consecutive burst addresses, and `column_run` is their mapping's
  /// AddressMapper::column_run(): each aligned run of that many is one
  /// row's consecutive columns, queued as one entry.
  template <class It>
  void enqueue_run(std::uint32_t slot, It first, It last, bool write, std::uint64_t cycle, std::uint64_t next_step,
                   std::uint32_t column_run);
  /// The last cycle processed.
  std::uint64_t clock() const { return m_clk; }
  /// The cycle of the next event, refresh included, busy or not.
  std::uint64_t event_cycle() const { return m_next; }
  /// Processes the event at event_cycle().
  void step_next() { step(m_next); }
  /// Whether skip_idle(cycle) may stand for the refreshes due up to
  /// `cycle`: no bursts, and more than a round of refreshes that would
  /// each issue at its due cycle. With the command buses shared, every
  /// pseudo-channel of the channel must skip the same, or none.
  bool can_skip_idle(std::uint64_t cycle) const;
  /// Counts those refreshes without stepping through them, but for the
  /// last round's worth, which steps then issue (their commands leave the
  /// device state as all the earlier ones would).
  void skip_idle(std::uint64_t cycle);
  /// Process events up to and including `cycle` while it has bursts
  /// (stops, as next_cycle() does, once the queues are empty).
  void run_while_busy(std::uint64_t cycle) {
    while (m_next <= cycle && busy()) step(m_next);  // the cycle first: it usually ends the loop
  }
  /// Next cycle with work, kNoCycle while it has no bursts (refresh then
  /// waits until the next enqueue or finish(), which replay it).
  std::uint64_t next_cycle() const { return busy() ? m_next : kNoCycle; }
  bool busy() const { return !m_reads.empty() || !m_writes.empty(); }

  const PcStats& stats() const { return s_stats; }
  /// Steps that took the streaming shortcut (not a statistic of the model:
  /// tests use it to see that the shortcut ran).
  std::uint64_t streaming_steps() const { return m_streaming_steps; }
  /// Steps whose commands came from the previous step's plan (likewise).
  std::uint64_t planned_steps() const { return m_planned_steps; }
  /// Refreshes counted by skip_idle rather than stepped through (likewise).
  std::uint64_t skipped_refreshes() const { return m_skipped_refreshes; }
  /// Refreshes postponed and not issued yet.
  std::uint32_t refreshes_owed() const { return m_refresh.owed(); }

 private:
  void step(std::uint64_t c);
  /// Cycles after `due` an idle refresh due then issues, waiting for the
  /// channel's other idle pseudo-channels whose turn comes first.
  std::uint64_t turn_delay(std::uint64_t due) const;
  /// A row command or refresh (e = the burst it serves, or nullptr).
  void issue(Cmd cmd, QueueEntry* e, std::uint32_t bank, std::uint32_t row, std::uint32_t col, std::uint64_t c);
  void charge_stall(const QueueEntry& e, std::uint64_t legal, std::uint64_t rules_at, Constraint rules_why,
                    std::uint64_t c);
  /// Moves the data-bus idle time a column command found in `span`, its
  /// bank's last refresh (after the burst was `ready`), from `charge` (what
  /// held the burst, up to `held`) and `tail` (no burst waiting, up to `c`)
  /// to refresh. Out of line: a refresh is rarely in the way.
  [[gnu::noinline, gnu::cold]] void take_refresh_span(const RefreshPolicy::Span& span, std::uint64_t ready,
                                                      std::uint64_t held, std::uint64_t c, std::uint64_t& charge,
                                                      std::uint64_t& tail);
  /// At a refresh: throws when bursts have waited m_stuck_cycles with no
  /// column command. Out of line: a step that inlines it is slower.
  [[gnu::noinline, gnu::cold]] void check_stuck(std::uint64_t c) const;
  /// Adds the queues' occupancy from the last count up to cycle `c`, which
  /// must not be earlier: each step and each enqueue count, so that bursts
  /// count from when they came. An enqueue counts up to no later than the
  /// next step (m_next), so a step's cycle is never before the last count.
  void count_occupancy(std::uint64_t c) {
    s_stats.read_queue_integral += m_reads.size() * (c - m_counted);
    s_stats.write_queue_integral += m_writes.size() * (c - m_counted);
    m_counted = c;
  }
  /// Shows a command to the timing checker and the observer, if any (the
  /// check inline: usually there are none).
  void observe(Cmd cmd, std::uint32_t bank, std::uint32_t row, std::uint32_t col, std::uint64_t c) {
    if (m_notify) notify(DramCommand{cmd, bank, row, col, c});
  }
  void notify(const DramCommand& cmd);
  /// The next cycle with work; plans the scheduler's picks for it, taking
  /// over what `kept` says still holds after a command to `bank`.
  std::uint64_t compute_next(std::uint64_t c, PlanKept kept = PlanKept::kNothing, std::uint32_t bank = 0);
  /// The column command of active-queue entry `i`, and its bookkeeping;
  /// `kBranchFree` for general steps, where the burst's row outcome and
  /// binding constraint are data (BankState::earliest_branch_free), not
  /// for streaming steps, where they repeat.
  template <bool kBranchFree>
  void issue_column(BurstQueue& q, BurstQueue::Index i, std::uint64_t c);
  /// Shortcuts of the scheduler and compute_next, exact while every queued
  /// burst of the active direction is a row hit and no refresh is pending.
  BurstQueue::Index streaming_pick(const BurstQueue& q, std::uint64_t c) const;
  std::uint64_t streaming_next(std::uint64_t c);
  /// The cycle refresh next needs a step at, none pending, after a step
  /// at `c`: the next one while refreshes are owed and the queues are
  /// empty (it catches up), else the next due cycle (due_wake).
  std::uint64_t refresh_wake(std::uint64_t c) const {
    return m_refresh.owed() != 0 && !busy() ? c + 1 : due_wake(c);
  }
  /// The next due cycle, no earlier than c + 1 (kNoCycle with refresh off).
  std::uint64_t due_wake(std::uint64_t c) const {
    const std::uint64_t due = m_refresh.next_due();
    return due == kNoCycle ? kNoCycle : std::max(due, c + 1);
  }
  BurstQueue& active() { return m_write_mode ? m_writes : m_reads; }
  const BurstQueue& active() const { return m_write_mode ? m_writes : m_reads; }
  /// Whether write draining starts (the write queue at the high watermark, or
  /// reads run out) or stops (writes run out, or at the low watermark with
  /// reads waiting).
  bool mode_switch_due() const {
    if (m_write_mode) return m_writes.empty() || (m_writes.size() <= m_low && !m_reads.empty());
    return !m_writes.empty() && (m_writes.size() >= m_high || m_reads.empty());
  }

  // Members in the order a step reads them, the per-step ones together:
  // 16 controllers' state does not fit in L1, and a step usually starts on
  // a controller whose lines have been evicted.
  std::uint64_t m_clk = 0;   // last processed cycle
  std::uint64_t m_next = 0;  // next cycle with an event (refresh included)
  std::uint64_t m_bus_free = 0;  // cycle after the last column command's data-bus slot
  std::uint64_t m_counted = 0;  // queue occupancy counted up to this cycle (statistics)
  std::uint64_t m_skipped_refreshes = 0;
  std::uint64_t m_streaming_steps = 0, m_planned_steps = 0;
  BurstSink& m_sink;
  TimingChecker* m_checker;
  const CommandObserver* m_observer = nullptr;
  bool m_notify;  // a checker, or an observer with a function
  // m_cfg's and m_t's figures a step uses: starvation cap, write
  // watermarks, frontend and burst cycles, and a read's or write's column
  // command to its data delivered (latency + burst + backend).
  std::uint32_t m_cap, m_high, m_low, m_frontend, m_burst, m_read_done, m_write_done;
  bool m_fast;  // shortcuts on (MemoryConfig::fast_path): streaming steps, planned picks
  bool m_every_cycle;  // step in every cycle (MemoryConfig::every_cycle)
  bool m_closed_page, m_dual;
  bool m_keep_plans;  // a step may keep one class's plan (PlanKept): separate buses, and the timing table allows it
  bool m_write_mode = false;
  // The scheduler's plan for m_next (valid until a burst is queued), made
  // with refresh pending or not as m_plan_refresh says.
  bool m_plan_refresh = false;
  SchedulePlan m_plan;
  BurstQueue m_reads, m_writes;
  RefreshPolicy m_refresh;
  BankState m_state;
  PcStats s_stats;
  // Not needed on every step.
  std::uint32_t m_id;
  // Idle refreshes may be skipped (RefreshPolicy::idle_refreshes_on_time,
  // shortcuts on) when more than this many cycles of them are due: a round;
  // kNoCycle when they may not.
  std::uint64_t m_skip_span;
  // This pseudo-channel's number in its channel, and the channel's
  // pseudo-channels, when the command buses are shared (0 and 1 otherwise):
  // how late its idle refreshes issue (turn_delay).
  std::uint64_t m_place, m_turns;
  // Refresh rounds (tREFI, or banks x tREFIsb) with bursts queued and no
  // column command after which a refresh stops the run: only timings that
  // do not fit between refreshes (a livelock: each row the controller opens
  // is closed by the next refresh first) get there. Checked at each
  // refresh, so it costs nothing per command.
  static constexpr std::uint64_t kStuckRounds = 64;
  std::uint64_t m_stuck_cycles;
  std::uint64_t m_busy_since = 0;  // when the first burst after empty queues reached the scheduler
  std::uint32_t m_read_cap, m_write_cap;
  FrFcfsScheduler m_sched;
};

// Always inline (GCC kept it out of line): HbmModel::send calls it for
// every request. The arrival and the wake-up are worked out once for the run.
template <class It>
[[gnu::always_inline]] inline void PcController::enqueue_run(std::uint32_t slot, It first, It last, bool write,
                                                             std::uint64_t cycle, std::uint64_t next_step,
                                                             std::uint32_t column_run) {
  BurstQueue& q = write ? m_writes : m_reads;
  const std::uint64_t now = std::max(cycle, m_clk);
  // The first cycle a step would see these bursts in were the controller
  // stepping every cycle: it has stepped every earlier one.
  const std::uint64_t step_at = std::max(next_step, m_clk + 1);
  // Up to the enqueue, or the next step if that is earlier (never before
  // the last count: requests come in time order).
  count_occupancy(std::max(m_counted, std::min(now, m_next)));
  // Never in a cycle already stepped: a request taken at an edge the model
  // has run is seen from the next cycle, also with no frontend delay.
  const std::uint64_t arrival = std::max(now + m_frontend, step_at);
  // The backstop counts from when the scheduler can see them, not while the frontend holds them.
  if (!busy()) m_busy_since = arrival;
  // The first burst's arrival, the earliest (worked out before the loop: a
  // test for the first iteration inside it was a mispredicted branch).
  const std::uint64_t wake = first != last ? q.queued_arrival(arrival) : kNoCycle;
  for (It t = first; t != last;) {
    // The bursts to the end of this burst's column run are one entry
    // (BurstQueue): its place in the run is its column's low bits.
    const auto n = static_cast<std::uint16_t>(
        std::min<std::size_t>(static_cast<std::size_t>(last - t), column_run - (t->col & (column_run - 1))));
    // Filled in place: building an entry elsewhere and copying it stalls on
    // store forwarding.
    const bool hit = m_state.open_row(t->bank) == static_cast<std::int64_t>(t->row);
    QueueEntry& e = q[q.push_back(t->bank, t->row, arrival, hit, n)];
    e.slot = slot;
    e.col = static_cast<std::uint16_t>(t->col);
    e.outcome = RowOutcome::kUnknown;
    e.waiting_since = e.arrival;
    t += n;
  }
  // A step chooses the direction by the queue sizes, which count these
  // bursts from now, before they arrive: when they make a switch due, the
  // first step switches (as stepping every cycle does), which may come
  // before their arrival.
  m_next = std::min({m_next, wake, mode_switch_due() ? step_at : kNoCycle});
  m_plan.valid = false;
}

}  // namespace mxc::hbm
