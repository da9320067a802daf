#pragma once
// RemoteFabric: the inter-chip fabric served by another process, exact in the
// same way as RemoteMemoryTarget (docs/transport.md).
#include <memory>
#include <string>

#include "bridge/transport/client_session.h"
#include "models/core/fabric.h"

namespace mxc::transport {

class RemoteFabric : public Fabric {
 public:
  explicit RemoteFabric(std::shared_ptr<ClientSession> session);

  std::string name() const override { return "remote.fabric"; }
  Time next_event_time() const override { return m_next; }
  void advance_to(Time now) override;
  std::uint32_t num_chips() const override { return m_session->fabric_chips(); }
  bool can_inject(const IciPacket& pkt) const override;
  bool inject(const IciPacket& pkt, Time now) override;

 private:
  std::shared_ptr<ClientSession> m_session;
  Time m_next = kNever;
  std::uint64_t m_state = 0;  // as in RemoteMemoryTarget: cached probe answers per state
  mutable std::uint64_t m_probe_state = ~0ull;
  mutable std::uint64_t m_probe_id = 0;
  mutable std::uint32_t m_probe_src = 0;
  mutable bool m_probe_answer = false;
  std::vector<MemResponse> m_unused;
  std::vector<IciPacket> m_deliveries;
};

}  // namespace mxc::transport
