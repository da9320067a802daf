#pragma once
// The client's end of a connection to a Server: the handshake, one
// request/answer exchange per model interaction, heartbeats while the local
// simulation is busy, and proxies (RemoteMemoryTarget, RemoteFabric) that
// stand in for the served models. Every failure is a TransportError naming
// the server; after one, every further call fails the same way at once.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bridge/transport/channel.h"
#include "bridge/transport/served_models.h"
#include "models/core/fabric.h"
#include "models/core/memory_target.h"

namespace mxc::transport {

struct ClientOptions {
  std::string address;               ///< tcp://HOST:PORT or unix:PATH of the server.
  ServedSystem system;               ///< Must hash like the server's.
  std::uint64_t seed = 1;
  std::vector<std::uint32_t> chips;  ///< Chips whose memory is served; empty = all.
  Millis connect_timeout{5'000};
  Millis reply_timeout{10'000};      ///< A server silent this long is taken for dead.
  Millis heartbeat{1'000};           ///< Send HEARTBEAT after this much silence.
  /// Ask for lookahead mode: with a fixed-latency memory the proxies mirror its acceptance
  /// and timing, send requests without waiting, and take pushed completions (docs/transport.md).
  bool lookahead = true;
  /// Split run: this client runs only the tiles of `chips` (which must be given); the other chips
  /// are run by other clients of the same server, joined by its fabric (docs/transport.md).
  bool split = false;
  /// Split run: what every client of the run must agree on (Hello::split_terms; cosim's
  /// split_run_terms). A client whose terms differ from the run's is refused, naming them.
  std::string split_terms;
  /// A user's request to stop (Channel::set_stop): a wait for the server gives way to it.
  const std::atomic<bool>* stop = nullptr;
};

class ClientSession {
 public:
  /// Connects and shakes hands; throws TransportError (refusals carry the server's reason).
  static std::shared_ptr<ClientSession> connect(const ClientOptions& opts);
  ~ClientSession();

  /// The memories' fixed-latency contract the server granted (capacity 0: lock-step).
  const FixedLatency& contract() const { return m_contract; }
  /// Lookahead mode: sends an accepted request without waiting for anything.
  void post_request(std::uint32_t chip, const MemRequest& req, Time now);
  /// Lookahead mode: the next `n` completions of chip `chip`'s memory, in order (waits for those not yet pushed).
  void take_completions(std::uint32_t chip, std::size_t n, std::vector<MemResponse>& out);
  /// Offers (probe: asks about) a request to chip `chip`'s memory.
  AckMsg request(std::uint32_t chip, const MemRequest& req, Time now, bool probe);
  /// Injects (probe: asks about) a packet.
  AckMsg packet(const IciPacket& pkt, Time now, bool probe);
  /// Advances `target` (a chip or kFabricTarget) to `now` (kNever: only asks); returns its next event time.
  Time advance(std::uint32_t target, Time now, std::vector<MemResponse>& completions,
               std::vector<IciPacket>& deliveries);
  /// Split run: sends a packet without waiting (pkt.id = the sending tile's global component id).
  void post_packet(const IciPacket& pkt, Time now);
  /// Split run: sends this client's window and waits for the server's answer, taking the
  /// deliveries (PACKET, stamped with their delivery time) sent before it.
  WindowMsg window(const WindowMsg& mine, std::vector<PacketMsg>& deliveries);
  /// Split run, at the end: sends this client's part of the results, returns every client's.
  std::vector<std::string> exchange_reports(const std::string& mine);
  /// At the end of the run: finishes chip `chip`'s served memory at `now`; returns what it found.
  FinishMsg finish_memory(std::uint32_t chip, Time now);
  void backdoor_write(std::uint32_t chip, std::uint64_t addr, std::span<const std::uint8_t> data);
  void backdoor_read(std::uint32_t chip, std::uint64_t addr, std::span<std::uint8_t> out);
  /// Ends the session politely (also done by the destructor, best effort).
  void bye();
  /// Ends the session with ERROR(`why`), best effort: the server (and, in a split run, the
  /// other clients) learn why this client stops.
  void give_up(const std::string& why);

  /// Whether the server hosts this client's memories (else the client simulates them itself).
  bool serves_memories() const { return m_serves_memories; }
  /// Chips of the server's fabric; 0: it serves none (a single chip, or --serve memories).
  std::uint32_t fabric_chips() const { return m_fabric_chips; }
  /// Times the client waited for the server (the cost of the transport).
  std::uint64_t round_trips() const { return m_round_trips; }
  /// Messages sent without waiting for an answer (lookahead requests).
  std::uint64_t posted() const { return m_posted; }
  const std::string& address() const { return m_opts.address; }

  /// Proxies of the served models (they keep the session alive).
  static std::unique_ptr<MemoryTarget> make_memory(std::shared_ptr<ClientSession> s, std::uint32_t chip,
                                                   const std::string& name);
  static std::unique_ptr<Fabric> make_fabric(std::shared_ptr<ClientSession> s);
  const ClientOptions& options() const { return m_opts; }

 private:
  explicit ClientSession(ClientOptions opts);
  void send_locked(const Message& m);
  /// Why a write failed: the server's ERROR when it sent one before closing (it dropped this
  /// client and said why), else `e`'s words.
  std::string write_failure_locked(const TransportError& e);
  Message receive_locked();
  // The next message that is not a pushed completion (those go to m_inbox).
  Message receive_answer_locked();
  bool stash_locked(Message& m);
  void post_locked(const Message& m);
  [[noreturn]] void fail_locked(const std::string& why);
  // How the server's ERROR `text` reads in this client's error.
  std::string server_error(const std::string& text) const;
  void check_locked();
  void heartbeat_loop();

  ClientOptions m_opts;
  std::unique_ptr<Channel> m_channel;
  std::mutex m_mutex;                // one exchange at a time, heartbeats in between
  std::string m_failed;              // first failure; sticky
  bool m_closed = false;
  bool m_accepted = false;           // the handshake is done: an ERROR now ends a session under way
  bool m_serves_memories = false;
  std::uint32_t m_fabric_chips = 0;
  std::uint64_t m_round_trips = 0;
  std::uint64_t m_posted = 0;
  std::chrono::steady_clock::time_point m_first_queued;  // oldest posted request not yet written
  static constexpr std::size_t kPostBatchBytes = 4096;
  static constexpr std::chrono::microseconds kPostBatchDelay{20};
  FixedLatency m_contract;
  std::vector<std::deque<MemResponse>> m_inbox;  // per chip: pushed completions not yet taken
  std::vector<std::uint64_t> m_unanswered;       // per chip: posted requests not yet pushed back
  std::chrono::steady_clock::time_point m_last_send;
  std::condition_variable m_cv;
  bool m_stop = false;
  std::thread m_heartbeat;
};

}  // namespace mxc::transport
