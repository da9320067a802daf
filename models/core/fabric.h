#pragma once
// The seam between chips and the interconnect. Implementations: the
// packet-level torus model and the analytical alpha-beta model (models/ici).
#include <cstdint>
#include <functional>

#include "models/core/component.h"
#include "models/core/ici_packet.h"

namespace mxc {

class Fabric : public Component {
 public:
  using DeliveryFn = std::function<void(const IciPacket&)>;

  virtual std::uint32_t num_chips() const = 0;
  /// Whether chip `src` can inject a packet now (injection queue space).
  virtual bool can_inject(const IciPacket& pkt) const = 0;
  /// Offer a packet at `now`; false = refused, offer again later.
  virtual bool inject(const IciPacket& pkt, Time now) = 0;

  /// Called from advance_to() for each packet at its delivery time.
  void set_delivery(DeliveryFn fn) { m_delivery = std::move(fn); }

 protected:
  void deliver(const IciPacket& pkt) const {
    if (m_delivery) m_delivery(pkt);
  }

 private:
  DeliveryFn m_delivery;
};

}  // namespace mxc
