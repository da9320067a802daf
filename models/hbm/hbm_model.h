#pragma once
// HbmModel: a memory system of N HBM stacks behind the MemoryTarget seam.
// Requests of any size and alignment are split into bursts, spread over
// stacks (stack_interleave_bytes blocks, round robin) and pseudo-channels
// (the address mapping); each pseudo-channel has its own controller. Data is
// functional: writes land in a sparse backing store when accepted, reads
// return its contents as of acceptance.
//
// Latency of an isolated read to a closed bank, from acceptance:
//   (wait for the next tCK edge) + frontend + tRCD + CL + burst + backend
// where frontend = backend = 1 tCK by default (the fixed controller overhead).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/core/clock_domain.h"
#include "models/core/memory_target.h"
#include "models/core/sparse_memory.h"
#include "models/hbm/address_mapper.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_stats.h"
#include "models/hbm/latency_histogram.h"
#include "models/hbm/pc_controller.h"
#include "models/hbm/timing_checker.h"

namespace mxc::hbm {

class HbmModel : public MemoryTarget {
 public:
  /// Validates `cfg`; the timing checker runs when cfg.check_timing is set.
  HbmModel(std::string name, MemoryConfig cfg);
  ~HbmModel() override;

  std::string name() const override { return m_name; }
  Time next_event_time() const override { return m_next_event; }
  void advance_to(Time now) override;
  bool can_accept(const MemRequest& req) const override;
  bool send(const MemRequest& req, Time now) override;
  void backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) override;
  void backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const override;

  /// Brings idle controllers up to `now` (refresh they skipped while asleep)
  /// and runs the checker's end-of-run rules. Call once at the end.
  void finish(Time now);

  /// Bursts of a request, in address order (addr + bytes must not pass 2^64).
  void split(std::uint64_t addr, std::uint32_t bytes, std::vector<BurstTarget>& out) const;
  /// Throws std::invalid_argument for a request no state of the model could
  /// accept: one that passes the end of the 64-bit address space or needs
  /// more bursts than all the queues hold. can_accept and send check it.
  void check_request(const MemRequest& req) const;

  const MemoryConfig& config() const { return m_cfg; }
  const ClockDomain& clock() const { return m_clock; }
  std::uint32_t num_pcs() const { return static_cast<std::uint32_t>(m_pcs.size()); }
  const PcStats& pc_stats(std::uint32_t pc) const { return m_pcs[pc]->stats(); }
  PcStats total_stats() const;
  /// Controller steps that took the streaming shortcut, summed.
  std::uint64_t streaming_steps() const;
  /// Refreshes the controllers postponed and have not issued yet.
  std::uint64_t refreshes_owed() const;
  /// Controller steps that took the scheduler's plan from the step before, summed.
  std::uint64_t planned_steps() const;
  /// Refreshes of idle controllers counted rather than stepped through, summed.
  std::uint64_t skipped_refreshes() const;
  const LatencyHistogram& latency() const { return m_latency; }
  std::uint64_t requests_done() const { return s_reads + s_writes; }
  std::uint64_t reads() const { return s_reads; }
  std::uint64_t writes() const { return s_writes; }
  std::uint64_t bytes_read() const { return s_bytes_read; }
  std::uint64_t bytes_written() const { return s_bytes_written; }
  /// Bytes the memory holds (every stack); addresses wrap at this size.
  std::uint64_t capacity_bytes() const { return m_capacity; }
  /// Accepted requests that reach past capacity_bytes(): the address bits
  /// above it are ignored, so they alias lower addresses (most likely a
  /// trace made for a larger memory).
  std::uint64_t requests_beyond_capacity() const { return s_beyond_capacity; }
  std::uint64_t outstanding() const { return m_slots.size() - m_free.size(); }
  /// After send() refused a request: the bursts that have left the queue
  /// that lacked room for it. The request need not be offered again until
  /// this changes (room only appears there when it does).
  std::uint64_t refusal_stamp() const {
    const PcStats& s = m_pcs[m_refused_pc]->stats();
    return m_refused_write ? s.write_bursts : s.read_bursts;
  }
  /// After send() refused a request: advances to the first cycle at which
  /// a burst leaves the queue that lacked room (refusal_stamp() changes;
  /// room cannot appear there before) and returns its time; 0, without
  /// advancing, when that queue is empty.
  Time advance_until_room();
  /// No request still to be delivered completes before this time: the
  /// earliest completion known, or the data of a column command issued at
  /// the controllers' next cycle; kNever when nothing is pending.
  Time earliest_completion() const;
  /// Calls fn(global pseudo-channel, command) for every DRAM command issued.
  void set_command_observer(PcController::CommandObserver fn);
  /// The timing checker, or nullptr when off.
  const TimingChecker* checker() const { return m_checker.get(); }

 private:
  struct Pending {
    MemResponse resp;  // complete holds the acceptance number until the request finishes
  };
  struct Finished {  // a request whose completion time is known
    Time at;
    std::uint64_t seq;  // acceptance order breaks ties deterministically
    std::uint32_t slot;
    bool operator>(const Finished& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  /// The finished requests in delivery order (time, then acceptance). Kept
  /// sorted, inserting from the back: requests mostly finish in about the
  /// order they were accepted, so an insertion is usually an append or a
  /// short move, where a heap paid a sift on every push and pop.
  class DeliveryQueue {
   public:
    bool empty() const { return m_head == m_items.size(); }
    const Finished& top() const { return m_items[m_head]; }
    void push(const Finished& f) {
      auto at = m_items.end();
      const auto first = m_items.begin() + static_cast<std::ptrdiff_t>(m_head);
      while (at != first && *(at - 1) > f) --at;
      if (at == m_items.end()) m_items.push_back(f);  // the usual case, inline
      else m_items.insert(at, f);
    }
    void pop() {
      if (++m_head == m_items.size()) {
        m_items.clear(), m_head = 0;
      } else if (m_head >= 64 && 2 * m_head >= m_items.size()) {  // drop the delivered front now and then
        m_items.erase(m_items.begin(), m_items.begin() + static_cast<std::ptrdiff_t>(m_head));
        m_head = 0;
      }
    }

   private:
    std::vector<Finished> m_items;
    std::size_t m_head = 0;  // m_items before it have been delivered
  };
  void deliver_until(Time now);
  /// Queues the requests whose last burst issued (m_sink) for delivery.
  void collect_finished();
  /// Runs every controller with work at or before cycle `limit` up to it.
  void run_controllers(std::uint64_t limit);
  /// run_controllers(limit) when any has work by then, and queues the
  /// requests it finished for delivery.
  void run_to(std::uint64_t limit);
  /// Splits `req` into m_scratch and returns the first pseudo-channel whose
  /// queue lacks room for its bursts there, or num_pcs() when all have room.
  std::uint32_t lacking_room(const MemRequest& req) const;
  /// The first pseudo-channel, in m_scratch's order, whose count of
  /// m_scratch's bursts `fits(pc, count)` refuses; num_pcs() when none.
  template <class Fits>
  std::uint32_t first_unfit(bool write, Fits fits) const;
  /// Throws std::invalid_argument when the request (split in m_scratch)
  /// has more bursts in a pseudo-channel than its queue holds: it could
  /// never be accepted.
  void check_fits(const MemRequest& req) const;
  std::uint64_t next_group_cycle() const;
  // The pseudo-channels of a channel share its command buses, so their
  // controllers run as one group, in cycle order (within a cycle in its
  // turn order, step_in_turn): group g is controllers [g * m_group, (g + 1)
  // * m_group). A group is busy while any of them has bursts; its next cycle
  // is then the earliest event of any of them (refreshes of the idle ones
  // included, which must take their turn on the row bus).
  std::uint32_t group_of(std::uint32_t pc) const { return pc / m_group; }
  /// The group's next cycle, kNoCycle while it is not busy (inline, with
  /// the presets' group of two written out: it runs after every group run).
  std::uint64_t group_next(std::uint32_t g) const {
    if (m_group == 1) return m_pcs[g]->next_cycle();
    if (m_group == 2) {
      const PcController& a = *m_pcs[2 * g];
      const PcController& b = *m_pcs[2 * g + 1];
      return a.busy() || b.busy() ? std::min(a.event_cycle(), b.event_cycle()) : kNoCycle;
    }
    bool busy = false;
    std::uint64_t n = kNoCycle;
    for (std::uint32_t i = g * m_group; i < (g + 1) * m_group; ++i) {
      busy |= m_pcs[i]->busy();
      n = std::min(n, m_pcs[i]->event_cycle());
    }
    return busy ? n : kNoCycle;
  }
  /// Steps the controllers of the group starting at `pcs` whose next event
  /// is cycle n, in the turn order of cycle n.
  void step_in_turn(const std::unique_ptr<PcController>* pcs, std::uint64_t n);
  /// Runs busy group g up to `limit` while it stays busy.
  void run_group(std::uint32_t g, std::uint64_t limit);
  /// Brings idle group g up to `cycle` (its refreshes, skipped where they may be).
  void replay_idle_group(std::uint32_t g, std::uint64_t cycle);
  /// Sets m_group_next[g] and its bit in m_busy.
  void set_group_next(std::size_t g, std::uint64_t next) {
    m_group_next[g] = next;
    const std::uint64_t bit = std::uint64_t{1} << (g % 64);
    if (next != kNoCycle) m_busy[g / 64] |= bit;
    else m_busy[g / 64] &= ~bit;
  }
  /// Recomputes m_next_event from m_pc_min; called wherever a controller's
  /// next cycle or the pending completions may have changed (send,
  /// advance_to, finish), so the kernel's per-step query costs nothing.
  void update_next_event();
  /// split() over several stacks.
  void split_stacks(std::uint64_t addr, std::uint32_t bytes, std::vector<BurstTarget>& out) const;

  std::uint64_t floor_cycle(Time t) const;

  std::string m_name;
  MemoryConfig m_cfg;
  ClockDomain m_clock;
  AddressMapper m_mapper;
  std::unique_ptr<TimingChecker> m_checker;
  PcController::CommandObserver m_observer;
  BurstSink m_sink;  // before m_pcs: the controllers report to it
  std::vector<CommandBuses> m_buses;  // one per channel, before m_pcs: their states point into it
  std::vector<std::unique_ptr<PcController>> m_pcs;
  std::uint32_t m_group;  // controllers per group: pseudo-channels per channel, 1 with buses of their own
  SparseMemory m_store;
  std::vector<Pending> m_slots;
  std::vector<std::uint32_t> m_free;
  DeliveryQueue m_finished;
  std::uint64_t m_seq = 0;
  std::vector<std::uint64_t> m_group_next;  // each group's group_next(), kept current
  // Bit g set when m_group_next[g] != kNoCycle (a group with bursts): a
  // tile keeps few requests in flight, and run_controllers visits only these.
  std::vector<std::uint64_t> m_busy;
  std::uint64_t m_pc_min = kNoCycle;     // their minimum, kept current
  // Cycles from a column command to its data delivered, the shorter of a
  // read's and a write's (PcController::done_cycles).
  std::uint64_t m_min_done;
  Time m_next_event = kNever;            // next_event_time(), kept current
  LatencyHistogram m_latency;
  mutable std::vector<BurstTarget> m_scratch;  // split() of the last request offered (address, size)
  mutable std::uint64_t m_scratch_addr = 0;
  mutable std::uint32_t m_scratch_bytes = 0;
  mutable bool m_scratch_valid = false;
  mutable bool m_scratch_one_pc = false;  // all of m_scratch in one pseudo-channel
  mutable AddressMapper::HighCache m_high;  // one-burst requests' decoding
  mutable std::vector<std::uint32_t> m_count_r, m_count_w;
  std::uint32_t m_refused_pc = 0;  // a queue that lacked room for the last refused request
  bool m_refused_write = false;
  std::uint64_t s_reads = 0, s_writes = 0, s_bytes_read = 0, s_bytes_written = 0;
  std::uint64_t m_capacity;
  std::uint64_t s_beyond_capacity = 0;
};

}  // namespace mxc::hbm
