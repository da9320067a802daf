#pragma once
// SharedMemory: several requesters (the tiles of one chip) on one memory.
// Each port is a MemoryTarget of its own; a port stamps its requests with
// its source id and receives exactly the completions of that source. The
// inner memory is the component the driver advances; ports never sleep or
// wake on their own (next_event_time is kNever).
#include <cstdint>
#include <memory>
#include <vector>

#include "models/core/memory_target.h"

namespace mxc {

class SharedMemory {
 public:
  /// Port i carries MemRequest::source = sources[i].
  SharedMemory(MemoryTarget& inner, std::vector<std::uint32_t> sources);
  ~SharedMemory();

  MemoryTarget& port(std::size_t i);
  std::size_t ports() const { return m_ports.size(); }
  MemoryTarget& inner() { return m_inner; }
  /// Bytes of completed reads and writes over all ports.
  std::uint64_t bytes_read() const { return s_bytes_read; }
  std::uint64_t bytes_written() const { return s_bytes_written; }

 private:
  class Port;
  MemoryTarget& m_inner;
  std::vector<std::unique_ptr<Port>> m_ports;
  std::uint64_t s_bytes_read = 0, s_bytes_written = 0;
};

}  // namespace mxc
