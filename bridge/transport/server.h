#pragma once
// The serving side: hosts the real memories (one per chip) and the fabric of
// a ServedSystem, or only one of the two (ServedParts), and runs them on
// behalf of connected clients. Each client
// connection is a session with its own fresh models, on its own thread; the
// models advance only when and as far as the client asks (docs/transport.md),
// so the server can never run ahead of the client's time.
#include <atomic>
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bridge/transport/channel.h"
#include "bridge/transport/served_models.h"
#include "bridge/transport/split_group.h"

namespace mxc::transport {

inline constexpr std::uint32_t kDefaultMaxClients = 64;

struct ServerOptions {
  ServedSystem system;
  ServedParts serve;              ///< What this server hosts; clients build the rest themselves.
  std::uint64_t seed = 1;
  Millis read_timeout{30'000};    ///< A client silent this long (no request, no heartbeat) is dropped.
  /// A connection whose HELLO has not come this long after it was accepted is closed, so that
  /// connections that say nothing cannot hold the max_clients places until read_timeout.
  Millis hello_timeout{10'000};
  Millis write_timeout{10'000};
  std::uint64_t max_sessions = 0; ///< Stop accepting after this many sessions (0 = serve until stopped).
  /// When set (say from a signal handler), serve() stops as after stop().
  const std::atomic<bool>* stop = nullptr;
  /// Sessions served at once; a connection beyond them is refused with ERROR (each session is a
  /// thread and four file descriptors, so an unbounded number would exhaust the process).
  std::uint32_t max_clients = kDefaultMaxClients;
  /// One line per session start (once its first message is in) and end, per refused connection,
  /// and per connection dropped before a word; nullptr = quiet.
  std::ostream* log = nullptr;
  /// Fault injection for tests: after this many messages of a session, close (drop) or go silent (stall).
  std::uint64_t drop_after = 0;
  std::uint64_t stall_after = 0;
};

/// How a session ended.
struct SessionOutcome {
  bool ok = false;
  std::string error;              ///< Why it failed (empty when ok).
  std::uint64_t messages = 0;
  double cpu_seconds = 0;         ///< CPU time of the session's thread (the cost of serving it).
  bool lookahead = false;         ///< The memories ran in lookahead mode (docs/transport.md).
};

class Server {
 public:
  /// Throws std::invalid_argument when it would serve nothing (no memories, and no fabric or a single chip).
  explicit Server(ServerOptions opts);
  ~Server();

  /// Binds `address` (e.g. tcp://127.0.0.1:7000, unix:/tmp/x.sock); returns the bound address.
  std::string listen(const std::string& address);
  /// Accepts and serves until stop(), `stop` or max_sessions; waits for running sessions to end.
  /// Connections beyond max_clients, or whose thread cannot start, are refused with ERROR and
  /// logged; a failing accept (out of file descriptors) is logged and retried.
  void serve();
  /// Thread-safe; serve() returns soon after.
  void stop() { m_stop = true; }
  /// Outcomes of finished sessions, in the order they ended.
  std::vector<SessionOutcome> outcomes() const;

 private:
  struct Refusal;
  /// Numbers the session (`session`) once the client's first message is in; 0 if none came.
  SessionOutcome run_session(Channel& ch, std::atomic<std::uint64_t>& session);
  /// Fails the split run still waiting for clients, if any: the server takes no more.
  void abandon_forming();
  /// Numbers a new session and logs "session N: `what`" under one lock; returns N.
  std::uint64_t number_session(const std::string& what);
  void refuse(std::shared_ptr<Channel> ch, const std::string& why, std::deque<Refusal>& refusing);
  void log(const std::string& line);
  void write_log(const std::string& line);  ///< log() with m_mutex held
  /// Joins a split run's client to the group forming (a new one if none is).
  std::pair<std::shared_ptr<SplitGroup>, std::size_t> join_split(const std::vector<std::uint32_t>& chips,
                                                                  const std::string& terms);

  ServerOptions m_opts;
  std::uint64_t m_hash = 0;
  std::unique_ptr<Listener> m_listener;
  std::atomic<bool> m_stop{false};
  mutable std::mutex m_mutex;
  std::vector<SessionOutcome> m_outcomes;
  std::uint64_t m_sessions = 0;  // numbered so far; connections that say nothing take no number
  std::shared_ptr<SplitGroup> m_forming;  // the split run whose clients are still joining
};

}  // namespace mxc::transport
