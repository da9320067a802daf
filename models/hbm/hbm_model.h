#pragma once
// HbmModel: a MemoryTarget made of one ChannelController per pseudo-channel
// of every stack. Requests of any size and alignment are split into bursts;
// a request completes when its last burst's data has transferred. Data is
// functional: writes update and reads copy a sparse backing store at
// acceptance, so data follows acceptance order.
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "models/core/clock_domain.h"
#include "models/core/memory_target.h"
#include "models/core/sparse_memory.h"
#include "models/hbm/address_mapper.h"
#include "models/hbm/channel_controller.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/latency_histogram.h"

namespace mxc {

class HbmModel : public MemoryTarget {
 public:
  /// Observer of DRAM commands: (stack, pseudo-channel in stack, command).
  using CommandFn = std::function<void(std::uint32_t, std::uint32_t, const DramCommand&)>;

  HbmModel(std::string name, const HbmConfig& cfg);

  std::string name() const override { return m_name; }
  Time next_event_time() const override;
  void advance_to(Time now) override;

  bool can_accept(const MemRequest& req) const override;
  bool send(const MemRequest& req, Time now) override;

  void backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) override;
  void backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const override;

  /// Settles refresh owed up to `now` and closes the timing checkers.
  void finish(Time now);
  void set_command_observer(CommandFn fn);

  const HbmConfig& config() const { return m_cfg; }
  const ClockDomain& clock() const { return m_clock; }
  std::size_t num_controllers() const { return m_ctrls.size(); }
  const ChannelController& controller(std::size_t i) const { return *m_ctrls[i]; }
  const LatencyHistogram& latency() const { return m_latency; }
  std::size_t in_flight() const { return m_slots.size() - m_free.size(); }
  /// Every violation any controller's checker found (empty if checking is off).
  std::vector<TimingViolation> violations() const;

  std::uint64_t reads() const { return s_reads; }
  std::uint64_t writes() const { return s_writes; }
  std::uint64_t bytes_read() const { return s_bytes_read; }
  std::uint64_t bytes_written() const { return s_bytes_written; }

 private:
  struct Slot {
    MemResponse resp;
    std::uint32_t bursts_left = 0;
    std::uint64_t last_cycle = 0;
  };
  struct Done {
    Time at;
    std::uint64_t seq;
    std::uint32_t slot;
    bool operator>(const Done& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  void burst_done(std::uint32_t slot, std::uint64_t cycle);
  std::uint64_t min_ctrl_cycle() const;
  std::uint32_t ctrl_index(const HbmLocation& l) const { return l.stack * m_units + l.unit; }

  std::string m_name;
  HbmConfig m_cfg;
  ClockDomain m_clock;
  AddressMapper m_mapper;
  std::uint32_t m_units;
  std::uint32_t m_burst_bytes;
  std::vector<std::unique_ptr<ChannelController>> m_ctrls;
  std::vector<Slot> m_slots;
  std::vector<std::uint32_t> m_free;
  std::priority_queue<Done, std::vector<Done>, std::greater<Done>> m_done;
  std::uint64_t m_done_seq = 0;
  std::uint64_t m_next_cycle = kNever;  // min over controllers
  mutable std::vector<std::uint32_t> m_scratch;  // per-controller burst counts in can_accept
  mutable std::vector<std::uint32_t> m_touched;
  SparseMemory m_store;
  LatencyHistogram m_latency;
  std::uint64_t s_reads = 0, s_writes = 0, s_bytes_read = 0, s_bytes_written = 0;
};

}  // namespace mxc
