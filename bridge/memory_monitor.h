#pragma once
// MemoryMonitor: a MemoryTarget that forwards everything to another one and
// logs every request the inner target accepted, with its completion. The log
// feeds the timing correlator (RTL against model, per channel) and the
// timeline trace. Register the monitor with the kernel instead of the inner
// target, and set the completion callback on the monitor: it replaces the
// inner target's callback with its own.
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/core/chunked_log.h"
#include "models/core/memory_target.h"

namespace mxc {

/// One accepted memory request; complete == kNever until it completes.
struct MemoryLogEntry {
  std::uint64_t id = 0;
  std::uint32_t source = 0;
  std::uint64_t addr = 0;
  std::uint32_t bytes = 0;
  bool write = false;
  Time issue = 0;              ///< When the sender first offered it (MemRequest::issue).
  Time accept = 0;             ///< When the inner target took it.
  Time complete = kNever;      ///< When its response was delivered.
  /// A write's byte mask (WSTRB) as byte_mask_digest() of MemRequest::byte_enable: 0 when every
  /// byte is written. The correlator compares it between RTL and model, so that a write whose
  /// strobes enable bytes the model's leave alone (or the reverse) fails even where the data
  /// check never reads those bytes.
  std::uint64_t byte_mask = 0;
};

/// A byte mask in one word, to compare two requests' masks without keeping them: 0 when no byte
/// is disabled (no mask, or an all-ones one), else the number of disabled bytes (at most 0xffff)
/// in the top 16 bits and a hash of their positions in the low 48, never 0.
std::uint64_t byte_mask_digest(const std::vector<bool>& enable);
/// A digest as text for a request of `bytes` bytes: "all 32 bytes", or "16 of 32 bytes (mask
/// digest 0x...)".
std::string describe_byte_mask(std::uint64_t digest, std::uint32_t bytes);

/// A monitor's requests in acceptance order. In chunks: the log grows by every
/// request of the run, and a doubling vector's copies and fresh pages cost
/// more than the logging itself.
using MemoryLog = ChunkedLog<MemoryLogEntry>;

class MemoryMonitor : public MemoryTarget {
 public:
  /// Wraps `inner` (not owned; must outlive the monitor).
  explicit MemoryMonitor(MemoryTarget& inner, std::string name = {});
  ~MemoryMonitor() override;
  MemoryMonitor(const MemoryMonitor&) = delete;  // the inner callback points at this object
  MemoryMonitor& operator=(const MemoryMonitor&) = delete;

  std::string name() const override { return m_name; }
  Time next_event_time() const override { return m_inner.next_event_time(); }
  void advance_to(Time now) override { m_inner.advance_to(now); }

  bool can_accept(const MemRequest& req) const override { return m_inner.can_accept(req); }
  bool send(const MemRequest& req, Time now) override;

  void backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) override {
    m_inner.backdoor_write(addr, data);
  }
  void backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const override { m_inner.backdoor_read(addr, out); }

  /// Accepted requests in acceptance order.
  const MemoryLog& log() const { return m_log; }
  /// Requests logged and not yet completed.
  std::size_t outstanding() const { return m_outstanding; }
  /// Responses forwarded so far, logged or not (watchdog progress).
  std::uint64_t answered() const { return m_answered; }

  /// Logging paused: requests and completions pass through unrecorded, for a
  /// monitor whose log another one can stand for (the shadow's, while its memory
  /// answers from the design's log: cosim/chip_set.h). Whoever pauses it brings
  /// the log up to date with record_accepted() / record_completion() in the
  /// order the monitor would have seen them, then resumes, when it can no
  /// longer stand in.
  void pause_logging() { m_paused = true; }
  void resume_logging() { m_paused = false; }
  /// What send() logs for a request `inner` accepted (`e.complete` unused), and on_complete() for a completion.
  void record_accepted(const MemoryLogEntry& e);
  void record_completion(std::uint32_t source, std::uint64_t id, Time complete);
  /// Completions that matched no logged request (a target bug; forwarded anyway).
  std::uint64_t unmatched_completions() const { return s_unmatched; }

 private:
  void on_complete(const MemResponse& resp);
  struct Chain;
  /// Logs a completion of the oldest request in `chain`; returns whether it was the last.
  bool complete_oldest(Chain& chain, Time complete);

  MemoryTarget& m_inner;
  std::string m_name;
  MemoryLog m_log;
  // (source, id) -> the outstanding requests with that key, oldest first. A
  // sender may reuse an id once, or while, earlier ones are in flight: the
  // later ones are chained through m_next_same (by log index) behind the
  // oldest. This runs for every request and completion, so a key is looked
  // up first in a direct-mapped ring (slot = id modulo its size), where a
  // sender numbering its requests in order, as the transactors do, always
  // finds it; a key whose slot another key holds goes to a hash map. A key
  // is in one of the two, never both: while the map holds any key, a new key
  // is looked up there before it may take a free slot.
  struct Key {
    std::uint32_t source;
    std::uint64_t id;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return std::hash<std::uint64_t>{}(k.id * 0x9e3779b97f4a7c15ULL ^ k.source); }
  };
  struct Chain {
    std::size_t oldest, newest;  // log indices
  };
  struct Slot {
    Key key{0, 0};
    Chain chain{0, 0};
    bool used = false;
  };
  static constexpr std::size_t kSlots = 256;  // a power of two, above any sender's requests in flight
  std::vector<Slot> m_ring = std::vector<Slot>(kSlots);
  using PendingMap = std::unordered_map<Key, Chain, KeyHash>;
  PendingMap m_pending;
  // Nodes of erased keys, reused by the next inserts: no allocation per request.
  std::vector<PendingMap::node_type> m_spare;
  ChunkedLog<std::size_t> m_next_same;  // per log entry: the next outstanding one with its key
  std::size_t m_outstanding = 0;
  std::uint64_t m_answered = 0;
  std::uint64_t s_unmatched = 0;
  bool m_paused = false;
};

}  // namespace mxc
