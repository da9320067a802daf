#pragma once
// ChipPort: the fabric as one client of a split run sees it (docs/transport.md).
// Several clients run the chips of one system and a server runs the fabric
// for all of them, rebuilding the in-process order of every step that reaches
// it. The port posts this client's packets, delivers the packets for its chips
// at their times, and holds the client's kernel at the server's grant: the
// earliest time a packet for this client could be delivered that the server
// does not know yet. There the port sends a WINDOW and waits for the answer.
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bridge/transport/client_session.h"
#include "models/core/fabric.h"

namespace mxc::transport {

class ChipPort : public Fabric {
 public:
  /// A step of the global order: (time, global component id).
  using Step = std::pair<Time, std::uint32_t>;

  explicit ChipPort(std::shared_ptr<ClientSession> session);

  std::string name() const override { return "remote.fabric"; }
  Time next_event_time() const override;
  void advance_to(Time now) override;
  std::uint32_t num_chips() const override { return m_session->fabric_chips(); }
  /// The server queues refused packets and offers them again, as ChipSet does in one process.
  bool can_inject(const IciPacket&) const override { return true; }
  /// Posts the packet; pkt.id is the global component id of the tile that sent it.
  bool inject(const IciPacket& pkt, Time now) override;

  /// How the client finds its own next event (tiles and memories), sent with each WINDOW.
  void set_next_local(std::function<Time()> fn) { m_next_local = std::move(fn); }
  /// This client's chips (and its shadow) finished after `step`: tells the server at once.
  void finished(Step step);
  /// The common end (after the last step of every client and the fabric), once the server sent it.
  const std::optional<Step>& end() const { return m_end; }
  /// This client stops before the common end (a hang, a protocol violation): tells the others why.
  void give_up(const std::string& why) { m_session->give_up(why); }
  /// At the end: this client's part of the results for every client's.
  std::vector<std::string> exchange_reports(const std::string& mine) { return m_session->exchange_reports(mine); }

 private:
  void window(Time now);

  std::shared_ptr<ClientSession> m_session;
  std::function<Time()> m_next_local;
  Time m_grant = 0;                // the first window is at time 0
  std::optional<Step> m_finished;  // this client's own end
  std::optional<Step> m_end;       // the common end
  std::deque<PacketMsg> m_deliveries;  // known, not yet due
  std::vector<PacketMsg> m_incoming;
};

}  // namespace mxc::transport
