#pragma once
// The shadow's memories without a second memory simulation, while they can be
// spared. A memory model is deterministic: its answers (send results,
// completions, next event times) follow from the calls it receives. The
// design's memory is wrapped in a RecordingMemory that logs every call and
// answer; the shadow's memory is a ReplayMemory that, as long as the shadow
// makes the same calls at the same times (the performance model is exact, so
// in a passing run it does), answers from that log. At the first call that
// differs it feeds the log's prefix to a real memory of its own, which is then
// in the state the design's memory was in at that point, and forwards every
// call to it from then on. Either way the shadow sees exactly what its own
// memory would have answered (docs/architecture.md).
//
// The design may run on another thread (ShadowRun): the log is written by one
// thread and read by another, entries published with release/acquire order.
// The reader only looks at times the writer has passed, so an entry it does
// not find yet is one the design never made at that time.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bridge/memory_monitor.h"
#include "models/core/chunked_log.h"
#include "models/core/memory_target.h"

namespace mxc {

/// The calls a memory received and what it answered, in call order. Three
/// streams, each read in order: calls (kind, time, answer), the requests of
/// the sends among them, and the completions delivered during them. Kept
/// compact (16, 48 and 56 bytes an entry): the log grows by every call of
/// the run, and faulting in its fresh pages is much of what it costs.
class MemoryCallLog {
 public:
  enum class Kind : std::uint8_t { kSend, kAdvance };
  /// 16 bytes: one is logged for every call of the run.
  struct Call {
    static constexpr std::uint32_t kNoNext = ~std::uint32_t{0};
    Time now = 0;
    std::uint32_t next_after = kNoNext;  ///< next_event() - now; kNoNext: kNever.
    std::uint32_t packed = 0;            ///< responses() << 2 | accepted() << 1 | (kind() == kSend).
    /// The memory's next_event_time() after the call.
    Time next_event() const { return next_after == kNoNext ? kNever : now + next_after; }
    /// Completions delivered during the call, next in the response stream.
    std::uint32_t responses() const { return packed >> 2; }
    /// kSend: what send() returned.
    bool accepted() const { return (packed >> 1 & 1) != 0; }
    Kind kind() const { return (packed & 1) != 0 ? Kind::kSend : Kind::kAdvance; }
  };
  /// A kSend call's request: every field but the data; the byte mask as its digest
  /// (MemoryLogEntry::byte_mask), which the shadow's monitors log from here while they stand
  /// paused, and which a replay must match: a mask the model's request does not share is
  /// a difference the correlator has to see.
  struct Request {
    std::uint64_t id = 0, addr = 0;
    Time issue = 0;
    std::uint32_t bytes = 0, source = 0;
    bool write = false;
    std::uint64_t byte_mask = 0;
  };
  /// A completion without its data (the shadow's memories carry none).
  struct Response {
    std::uint64_t id = 0, addr = 0;
    Time issue = 0, accept = 0, complete = 0;
    std::uint32_t bytes = 0, source = 0;
    bool write = false;
  };
  MemoryCallLog();
  ~MemoryCallLog();
  MemoryCallLog(const MemoryCallLog&) = delete;
  MemoryCallLog& operator=(const MemoryCallLog&) = delete;

  /// The memory's next event before any call (its first refresh, say).
  void set_initial_next_event(Time t) { m_initial_next_event = t; }
  Time initial_next_event() const { return m_initial_next_event; }

  // Writer side (one thread). Each call is logged with the completions add_response()d since
  // the previous one and made visible to the reader. A log that outgrew its capacity keeps
  // nothing more: a replay reaching its end diverges, which stays exact.
  void add_send(const MemRequest& req, Time now, bool accepted, Time next_event);
  void add_advance(Time now, Time next_event);
  void add_response(const MemResponse& r);

  /// Whether calls were left out (a stream was full, or a call did not fit): writer side, or
  /// once the writer is done.
  bool truncated() const { return m_truncated; }

  // Reader side (one thread).
  /// Calls published so far.
  std::uint64_t published_calls() const { return m_published_calls.load(std::memory_order_acquire); }
  const Call& call(std::uint64_t i) const { return m_calls[i]; }
  /// The i-th kSend call's request, and the i-th completion.
  const Request& request(std::uint64_t i) const { return m_requests[i]; }
  const Response& response(std::uint64_t i) const { return m_responses[i]; }

  static bool same_request(const Request& r, const MemRequest& req) {
    return r.id == req.id && r.addr == req.addr && r.bytes == req.bytes && r.source == req.source &&
           r.write == req.write && r.issue == req.issue &&
           r.byte_mask == (req.write ? byte_mask_digest(req.byte_enable) : 0);
  }

 private:
  // 16 M elements each at most. Bounded, so a stream's chunk table never moves (ChunkedLog): the
  // reader indexes published elements while the writer appends.
  static constexpr std::size_t kCapacity = std::size_t{1} << 24;
  /// Logs and publishes a call with the responses since the previous one.
  void push_call(Kind kind, bool accepted, Time now, Time next_event);

  ChunkedLog<Call> m_calls{kCapacity};
  ChunkedLog<Request> m_requests{kCapacity};
  ChunkedLog<Response> m_responses{kCapacity};
  std::uint64_t m_call_responses = 0;  // responses before those of the call being made
  std::atomic<std::uint64_t> m_published_calls{0};
  Time m_initial_next_event = kNever;
  bool m_truncated = false;
};

/// Forwards everything to `inner` and logs each call with its answer.
class RecordingMemory final : public MemoryTarget {
 public:
  /// Takes `inner` over; installs itself as its completion callback.
  explicit RecordingMemory(std::unique_ptr<MemoryTarget> inner);
  ~RecordingMemory() override;

  std::string name() const override { return m_inner->name(); }
  Time next_event_time() const override { return m_inner->next_event_time(); }
  void advance_to(Time now) override;
  bool can_accept(const MemRequest& req) const override { return m_inner->can_accept(req); }
  bool send(const MemRequest& req, Time now) override;
  void backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) override {
    m_inner->backdoor_write(addr, data);
  }
  void backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const override { m_inner->backdoor_read(addr, out); }

  const MemoryCallLog& log() const { return m_log; }

 private:
  std::unique_ptr<MemoryTarget> m_inner;
  MemoryCallLog m_log;
};

/// Answers from a RecordingMemory's log while the calls agree; then becomes `real`.
class ReplayMemory final : public MemoryTarget {
 public:
  /// `log` must outlive this memory; `real` is the memory it stands for, fresh, with the
  /// same configuration as the recorded one (installs itself as its completion callback).
  ReplayMemory(const MemoryCallLog& log, std::unique_ptr<MemoryTarget> real);
  ~ReplayMemory() override;

  std::string name() const override { return m_real->name(); }
  Time next_event_time() const override { return m_diverged ? m_real->next_event_time() : m_next_event; }
  void advance_to(Time now) override;
  bool can_accept(const MemRequest& req) const override;
  bool send(const MemRequest& req, Time now) override;
  void backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) override {
    m_real->backdoor_write(addr, data);
  }
  void backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const override { m_real->backdoor_read(addr, out); }

  bool diverged() const { return m_diverged; }
  /// Calls answered from the log.
  std::uint64_t replayed_calls() const { return m_pos; }
  const MemoryCallLog& log() const { return m_log; }
  /// Called once, when the calls stop agreeing, with the number answered from the log, before
  /// the real memory takes the call that differs.
  void set_on_diverge(std::function<void(std::uint64_t replayed_calls)> f) { m_on_diverge = std::move(f); }

 private:
  /// The next logged call, if published; null at the end of what is known.
  const MemoryCallLog::Call* next_call() const;
  /// Answers call `c` from the log: its completions, its next event.
  void replay(const MemoryCallLog::Call& c);
  /// Brings the real memory to the logged state before the current call (without delivering
  /// the completions again) and hands over to it.
  void diverge();

  const MemoryCallLog& m_log;
  std::unique_ptr<MemoryTarget> m_real;
  std::uint64_t m_pos = 0;           // calls answered
  std::uint64_t m_request_pos = 0;   // sends among them
  std::uint64_t m_response_pos = 0;  // completions delivered
  MemResponse m_response;            // a logged completion as delivered (no data)
  Time m_next_event;
  bool m_diverged = false;
  bool m_rebuilding = false;  // completions of the rebuild were delivered from the log already
  std::function<void(std::uint64_t)> m_on_diverge;
};

/// Logs the first `calls` calls of `log` in the monitors whose logging was paused above the
/// memory replaying it, as they would have logged them live: `monitor_of(source)` is the
/// monitor that sees the requests and completions of `source`. The caller resumes them.
template <class MonitorOf>
void log_replayed_calls(const MemoryCallLog& log, std::uint64_t calls, MonitorOf&& monitor_of) {
  // As a monitor above the memory saw them: each call's completions (delivered during it), then
  // an accepted send's request.
  for (std::uint64_t i = 0, sends = 0, responses = 0; i < calls; ++i) {
    const MemoryCallLog::Call& c = log.call(i);
    for (std::uint32_t k = 0; k < c.responses(); ++k) {
      const MemoryCallLog::Response& r = log.response(responses++);
      monitor_of(r.source).record_completion(r.source, r.id, r.complete);
    }
    if (c.kind() != MemoryCallLog::Kind::kSend) continue;
    const MemoryCallLog::Request& r = log.request(sends++);
    if (c.accepted())
      monitor_of(r.source).record_accepted(
          {r.id, r.source, r.addr, r.bytes, r.write, r.issue, c.now, kNever, r.byte_mask});
  }
}

}  // namespace mxc
