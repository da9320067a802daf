#pragma once
// SplitGroup: the server's half of a split run (docs/transport.md), shared by
// the sessions of the clients that together run one system's chips, each on
// its own thread. It owns the fabric and rebuilds, from the packets the
// clients post stamped with (time, sending tile), the order of every step the
// one-process kernel would run on the fabric: packets numbered in that order,
// refused ones queued per chip and offered again after every such step, as
// ChipSet::pump does. Clients meet in rounds (WINDOW): when all are in, the
// fabric runs as far as no client can still post anything before, and each
// client is granted the time up to which no unknown delivery can reach it.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bridge/transport/frame.h"
#include "bridge/transport/served_models.h"
#include "models/core/fabric.h"

namespace mxc::transport {

class SplitGroup {
 public:
  /// `join_timeout`: how long the first client waits for the others to join.
  SplitGroup(const ServedSystem& sys, std::chrono::milliseconds join_timeout);
  ~SplitGroup();

  /// Adds a client running `chips` with `terms` (Hello::split_terms); returns its index. Throws
  /// std::invalid_argument naming a chip out of range or already taken, or the terms that
  /// differ from those of the run's first client.
  std::size_t join(const std::vector<std::uint32_t>& chips, const std::string& terms);
  /// Every chip has a client (no more may join).
  bool complete() const;
  /// The run failed (a client left, a join timed out, a protocol breach): it can only end.
  bool failed() const;
  std::uint32_t fabric_chips() const;

  /// A packet of client `member` (pkt.id = the global component id of the sending tile).
  void post(std::size_t member, Time time, IciPacket pkt);
  /// Client `member`'s window: waits until every client has sent its own, runs the fabric,
  /// returns this client's deliveries and answer. `keepalive` runs about once a second while
  /// waiting. Throws std::runtime_error if the run failed (a client left, a protocol breach).
  WindowMsg window(std::size_t member, const WindowMsg& mine, std::vector<PacketMsg>& deliveries,
                   const std::function<void()>& keepalive);
  /// Client `member`'s part of the results; returns every client's once all are in.
  std::vector<std::string> report(std::size_t member, std::string part, const std::function<void()>& keepalive);
  /// Client `member`'s session ended (`why` empty: after the reports); an unfinished run fails.
  void leave(std::size_t member, const std::string& why);
  /// A run still waiting for clients fails now (`why`): none can join any more.
  void abandon(const std::string& why);

 private:
  struct Post {
    Time time;
    IciPacket pkt;
  };
  struct Member {
    std::vector<std::uint32_t> chips;
    std::deque<Post> posts;       // in the client's step order
    bool in = false;              // its window (or report) of this round is here
    WindowMsg window;
    WindowMsg answer;
    std::vector<PacketMsg> deliveries;
    std::string part;
    // Every packet of this client stamped at or before it is posted (its last window's bound,
    // as the fabric was run to it); none yet before the first round.
    std::optional<Time> sealed;
  };
  using Lock = std::unique_lock<std::mutex>;
  void wait_round(Lock& lk, std::uint64_t round, const std::function<void()>& keepalive);
  void fail_locked(const std::string& why);
  void run_round_locked();
  void offer_locked(Time now);
  Time next_delivery_locked(Time horizon) const;
  std::string chips_text(const Member& m) const;

  ServedSystem m_sys;
  std::chrono::milliseconds m_join_timeout;
  std::unique_ptr<Fabric> m_fabric;
  Time m_lookahead;
  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  std::string m_terms;                           // the first client's: every other must agree
  std::deque<Member> m_members;                  // a deque: a waiting session keeps its reference while others join
  std::vector<std::int64_t> m_owner;             // per chip: member index, -1 = none yet
  std::vector<std::deque<IciPacket>> m_pending;  // per chip: refused by the fabric, offered again
  std::uint64_t m_next_packet = 0;
  std::uint64_t m_round = 0;
  Time m_grant = 0;                              // where the unfinished clients are
  std::optional<std::pair<Time, std::uint32_t>> m_last_fabric_step;
  bool m_ended = false;                          // the common end was sent
  bool m_reported = false;                       // the reports were sent
  std::string m_failed;
  std::vector<PacketMsg> m_step_deliveries;
};

}  // namespace mxc::transport
