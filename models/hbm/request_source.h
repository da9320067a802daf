#pragma once
// Where a closed-loop run gets its requests: generated patterns or a trace.
#include <algorithm>
#include <cstdint>
#include <string>

#include "models/core/mem_transaction.h"

namespace mxc::hbm {

/// One request to offer: address, direction, size, earliest offer time.
struct SourceItem {
  std::uint64_t addr = 0;
  std::uint32_t bytes = 64;
  bool write = false;
  Time at = 0;  ///< Not offered before this time (trace timestamps; 0 = at once).
};

/// Request `id` for `item`, offered no earlier than `now` (a write carries
/// `bytes` bytes of its id's low byte). Reuses `req`'s data buffer.
inline void make_request(const SourceItem& item, std::uint64_t id, Time now, MemRequest& req) {
  req.id = id;
  req.issue = std::max(item.at, now);
  req.addr = item.addr;
  req.bytes = item.bytes;
  req.write = item.write;
  if (item.write) req.data.assign(item.bytes, static_cast<std::uint8_t>(id));
  else req.data.clear();
}

class RequestSource {
 public:
  enum class Next { kReady, kWait, kEnd };
  virtual ~RequestSource() = default;
  /// Produces the next request; kWait = only after an outstanding one completes.
  virtual Next next(SourceItem& out) = 0;
  /// Told about every completion (pointer chasing follows read data).
  virtual void on_complete(const MemResponse&) {}
  /// Where the request next() gave last came from, for messages about it
  /// (a trace's "file:line"); empty when there is nothing to add.
  virtual std::string where() const { return {}; }
};

}  // namespace mxc::hbm
