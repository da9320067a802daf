#pragma once
// One direction of an inter-chip link together with the output side of the
// router that drives it: per-VC credits for the downstream input buffers and
// per-VC waiting queues (packets in transit, and messages injected locally).
#include <cstdint>
#include <vector>

#include "models/core/time.h"
#include "models/ici/ring_fifo.h"

namespace mxc::ici {

struct LinkVc {
  std::int64_t credits = 0;             ///< Free flits in the downstream buffer of this VC.
  RingFifo<std::uint32_t> transit;      ///< Segments (arrived from other links) waiting, oldest first.
  RingFifo<std::uint32_t> inject;       ///< Local messages waiting, oldest first.
};

// Fields used on every packet-hop first, so that they share a cache line.
struct alignas(64) Link {
  Time busy_until = 0;                  ///< Serialisation of the current packet ends here.
  std::uint64_t waiting = 0;            ///< Bit 2*vc (transit) / 2*vc+1 (inject) set while that queue is not empty (first 64 slots).
  std::uint32_t queued = 0;             ///< Entries waiting in all VC queues.
  std::uint32_t rr = 0;                 ///< Round-robin pointer over (VC, transit|inject) slots.
  std::uint32_t to = 0xffffffffu;       ///< Downstream chip (kNoChip: no link here).
  bool wake_pending = false;            ///< A link-free event is queued.
  bool woken = false;                   ///< In the fabric's list of links to arbitrate at this picosecond.
  bool wrap = false;                    ///< Wraparound (dateline) link.
  std::uint32_t dim = 0;
  std::vector<LinkVc> vcs;
  std::uint64_t s_packets = 0;          ///< Wire packets sent.
  std::uint64_t s_wire_bytes = 0;       ///< Header + payload bytes sent.
  Time s_busy_ps = 0;                   ///< Time spent serialising.
};

}  // namespace mxc::ici
