#pragma once
// CollectiveRunner: plays a chunk schedule (schedule.h) on any Fabric. It
// owns the fabric's delivery callback while it runs and drives the fabric
// through its Component interface (next_event_time / advance_to), injecting
// each step's messages as soon as the step's inputs have arrived and the
// fabric accepts them. Messages carry no payload (timing only); the tag of a
// message (stream, step) travels in IciPacket::addr.
#include <cstdint>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/core/fabric.h"
#include "models/core/progress.h"
#include "models/ici/groups.h"
#include "models/ici/schedule.h"
#include "models/ici/topology.h"

namespace mxc::ici {

struct CollectiveRun {
  Time start_ps = 0;
  Time end_ps = 0;               ///< Arrival of the last message.
  std::uint64_t messages = 0;    ///< Messages injected.
  std::uint64_t bytes_sent = 0;  ///< Payload bytes injected, all chips.
  Time time_ps() const { return end_ps - start_ps; }
};

/// The fabric went idle before every chip finished: messages wait on one
/// another in a cycle (a deadlock, possible with router.datelines off) or
/// were lost. A runtime error of the model, not of its input.
class CollectiveDeadlock : public std::runtime_error {
 public:
  CollectiveDeadlock(const std::string& what, std::uint64_t unfinished, const CollectiveRun& so_far)
      : std::runtime_error(what), m_unfinished(unfinished), m_so_far(so_far) {}
  /// Chip streams that had not finished.
  std::uint64_t unfinished() const { return m_unfinished; }
  /// The run up to the deadlock: the messages and bytes injected, the last arrival.
  const CollectiveRun& so_far() const { return m_so_far; }

 private:
  std::uint64_t m_unfinished;
  CollectiveRun m_so_far;
};

class CollectiveRunner {
 public:
  CollectiveRunner(Fabric& fabric, const Topology& topo);

  /// Messages larger than this are split (IciPacket::bytes is 32 bit).
  void set_max_message_bytes(std::uint64_t b) { m_max_msg = b; }

  /// Runs `s` from time `start`; throws CollectiveDeadlock if the fabric
  /// goes idle before the schedule completes (a deadlock or a lost message).
  /// `progress` is told the simulated time now and then; its stop flag, once
  /// set, ends the run with LoopStopped (the collective is not complete).
  CollectiveRun run(const Schedule& s, Time start = 0, const ProgressReport& progress = {});

 private:
  struct Cursor {
    std::uint32_t phase = 0, step = 0, g = 0;  // g: step index within the stream
    bool done = false;
    std::map<std::uint32_t, std::uint32_t> recv;  // messages received per step
  };
  struct Pending {
    std::uint32_t dst;
    std::uint64_t bytes;
    std::uint64_t tag;
  };

  void begin_step(std::uint32_t chip, std::uint32_t stream);
  void check_step(std::uint32_t chip, std::uint32_t stream);
  void flush(Time now);
  std::uint32_t pieces(std::uint64_t bytes) const;

  Fabric& m_fabric;
  const Topology& m_topo;
  Groups m_groups;
  std::uint64_t m_max_msg = 256ull << 20;
  const Schedule* m_sched = nullptr;
  std::vector<Cursor> m_cur;                  // chip * streams + stream
  std::vector<std::deque<Pending>> m_pending;  // per chip, in issue order
  std::vector<std::uint32_t> m_dirty;          // chips with pending sends
  std::vector<bool> m_is_dirty;
  std::vector<IciPacket> m_inbox;
  std::vector<std::uint64_t> m_next_id;
  std::uint64_t m_cursors_left = 0;
  CollectiveRun m_run;
};

}  // namespace mxc::ici
