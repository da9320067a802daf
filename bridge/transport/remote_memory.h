#pragma once
// RemoteMemoryTarget: a chip's memory served by another process. Exact, not
// approximate: the served model sees the same calls at the same simulated
// times as a local one would, and its completions come back during the
// advance_to() that produced them (docs/transport.md). Lock-step: one
// exchange per interaction. Lookahead (fixed-latency memory): requests are
// posted without waiting and completions pushed by the server.
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "bridge/transport/client_session.h"
#include "models/core/memory_target.h"

namespace mxc::transport {

class RemoteMemoryTarget : public MemoryTarget {
 public:
  RemoteMemoryTarget(std::shared_ptr<ClientSession> session, std::uint32_t chip, std::string name);

  std::string name() const override { return m_name; }
  /// The served model's own next event time, as of the last exchange (nothing else changes it).
  Time next_event_time() const override { return m_next; }
  void advance_to(Time now) override;
  bool can_accept(const MemRequest& req) const override;
  bool send(const MemRequest& req, Time now) override;
  void backdoor_write(std::uint64_t addr, std::span<const std::uint8_t> data) override;
  void backdoor_read(std::uint64_t addr, std::span<std::uint8_t> out) const override;
  /// At the end of the run, as a local HBM model's finish(now): the served model finishes and
  /// says what it found (end_report); its failure at the end (a timing violation) is thrown
  /// here as std::logic_error, as a local model throws it. Nothing to do for an ideal memory.
  void finish(Time now);
  /// What the served HBM model reported at finish(), or nullptr (not finished, or not HBM).
  const FinishMsg* end_report() const { return m_end ? &*m_end : nullptr; }

 private:
  std::shared_ptr<ClientSession> m_session;
  std::uint32_t m_chip;
  std::string m_name;
  Time m_next = kNever;
  // The served model's state changes only through send() and advance_to(), so
  // the answer to the same question between two of those is the same: asking
  // once saves a round trip each time a refused requester polls again.
  std::uint64_t m_state = 0;
  mutable std::uint64_t m_probe_state = ~0ull;
  mutable MemRequest m_probe;
  mutable bool m_probe_answer = false;
  std::vector<MemResponse> m_completions;
  std::vector<IciPacket> m_unused;
  // Lookahead mode (a fixed-latency contract): the requests in flight, in
  // acceptance order, mirror the served model exactly, so acceptance and the
  // next event time are known here without asking.
  struct InFlight {
    std::uint64_t id;
    Time complete;
  };
  FixedLatency m_contract;
  std::deque<InFlight> m_in_flight;
  std::optional<FinishMsg> m_end;
};

}  // namespace mxc::transport
