#pragma once
// A fixed sequence of calls on a memory, as the kernel makes them, and the
// completions it gives: run on a local model and on its remote proxy, the
// two logs must be equal call for call.
#include <cstdint>
#include <tuple>
#include <vector>

#include "models/core/memory_target.h"

namespace mxc::transport::testing {

struct Log {
  std::vector<std::tuple<std::uint64_t, Time, std::vector<std::uint8_t>>> done;
  void attach(MemoryTarget& m) {
    m.set_completion([this](const MemResponse& r) { done.emplace_back(r.id, r.complete, r.data); });
  }
};

/// Drives a memory the way the kernel does: requests offered at given times,
/// advancing to every next event in between.
inline void drive(MemoryTarget& m) {
  m.backdoor_write(0x100, std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});
  Time now = 0;
  const auto advance_until = [&](Time t) {
    while (m.next_event_time() <= t) {
      now = m.next_event_time();
      m.advance_to(now);
    }
    now = t;
  };
  for (std::uint64_t i = 0; i < 6; ++i) {
    advance_until(i * 30'000);
    const MemRequest r = i % 2 ? MemRequest::make_write(i, 0x200 + i, {static_cast<std::uint8_t>(i)})
                               : MemRequest::make_read(i, 0x100 + i, 2);
    // An offer the memory refuses (full) is made again at its next event.
    while (!(m.can_accept(r) && m.send(r, now))) advance_until(m.next_event_time());
  }
  advance_until(kNever - 1);
}

}  // namespace mxc::transport::testing
