#pragma once
// The seam between a requester (a tile's DMA, a trace player) and a memory
// model. Backpressure by refusal: send() returns false when the target cannot
// take the request now, and the sender offers it again later.
#include <cstdint>
#include <functional>
#include <span>

#include "models/core/component.h"
#include "models/core/mem_transaction.h"

namespace mxc {

class MemoryTarget : public Component {
 public:
  using CompletionFn = std::function<void(const MemResponse&)>;

  /// Whether send(req, now) would be accepted now.
  virtual bool can_accept(const MemRequest& req) const = 0;
  /// Offer a request at time `now`; false = refused, nothing changed.
  virtual bool send(const MemRequest& req, Time now) = 0;

  /// Called from advance_to() once per request, at its completion time.
  void set_completion(CompletionFn fn) { m_completion = std::move(fn); }
  /// Timing only: writes are not stored and reads complete without data. For
  /// memories whose requesters carry no data (performance-model tiles), where
  /// copying bytes in and out would be work nobody looks at. Timing unchanged.
  void set_timing_only(bool on) { m_timing_only = on; }
  bool timing_only() const { return m_timing_only; }

  /// Functional back door (no timing): load an image, inspect results.
  virtual void backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) = 0;
  virtual void backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const = 0;

 protected:
  void complete(const MemResponse& resp) const {
    if (m_completion) m_completion(resp);
  }

 private:
  CompletionFn m_completion;
  bool m_timing_only = false;
};

}  // namespace mxc
