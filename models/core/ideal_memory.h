#pragma once
// IdealMemory: every request completes a fixed latency after it is accepted,
// with at most `max_outstanding` in flight. For unit tests and for runs where
// the memory system is not under study.
//
// A request leaves the in-flight count at its completion time, whether or not
// advance_to() has delivered it yet: a request offered at that same time is
// taken, so the answer does not depend on whether the kernel ran the memory or
// the requester first at a tie.
#include <cstdint>
#include <deque>
#include <string>

#include "models/core/memory_target.h"
#include "models/core/sparse_memory.h"

namespace mxc {

/// How many of `in_flight` (ordered by non-decreasing `.complete`) are still
/// in flight at `now`: one completing at `now` has left. IdealMemory's rule,
/// which a proxy mirroring it (RemoteMemoryTarget) applies to its own record.
template <class InFlight>
std::size_t in_flight_at(const InFlight& in_flight, Time now) {
  std::size_t done = 0;
  while (done < in_flight.size() && in_flight[done].complete <= now) ++done;
  return in_flight.size() - done;
}

class IdealMemory : public MemoryTarget {
 public:
  IdealMemory(std::string name, Time latency_ps, std::size_t max_outstanding = 64);

  std::string name() const override { return m_name; }
  Time next_event_time() const override;
  void advance_to(Time now) override;

  /// Room by the requests not yet delivered (no time given): at a completion
  /// time not yet run, send() may take a request this refuses.
  bool can_accept(const MemRequest& req) const override;
  bool send(const MemRequest& req, Time now) override;

  void backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) override;
  void backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const override;

  std::uint64_t reads() const { return s_reads; }
  std::uint64_t writes() const { return s_writes; }
  std::uint64_t bytes_read() const { return s_bytes_read; }
  std::uint64_t bytes_written() const { return s_bytes_written; }

 private:
  std::string m_name;
  Time m_latency;
  std::size_t m_max_outstanding;
  SparseMemory m_store;
  std::deque<MemResponse> m_in_flight;  // completion times are non-decreasing
  std::uint64_t s_reads = 0, s_writes = 0, s_bytes_read = 0, s_bytes_written = 0;
};

}  // namespace mxc
