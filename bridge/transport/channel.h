#pragma once
// One framed connection over a TCP or Unix domain stream socket (Boost.Asio).
// Every operation has a deadline: a peer that dies, stalls or sends garbage
// becomes a TransportError naming the peer, never a hang. Not thread-safe:
// one user at a time (the client session serialises with a mutex).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "bridge/transport/address.h"
#include "bridge/transport/frame.h"

namespace mxc::transport {

using Millis = std::chrono::milliseconds;

/// A deadline as messages give it, in seconds without trailing zeros: "0.3 s", "10 s", "3600.5 s".
std::string seconds_text(Millis t);

/// The connection failed: closed, timed out, refused, or the peer sent garbage.
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The deadline of a receive passed with no message (the peer stalled, or has not spoken yet).
class TransportTimeout : public TransportError {
 public:
  using TransportError::TransportError;
};

class Channel {
 public:
  struct Impl;
  explicit Channel(std::unique_ptr<Impl> impl);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  /// Connects within `timeout`; throws TransportError.
  static std::unique_ptr<Channel> connect(const Address& addr, Millis timeout);

  /// Queues then flushes.
  void send(const Message& m, Millis timeout);
  /// Appends a frame to the output buffer without writing (see flush).
  void queue(const Message& m);
  /// Writes everything queued within `timeout`, reading what the peer sends meanwhile (up to
  /// about one frame) so two peers writing at once cannot block each other. A peer that takes
  /// nothing until the deadline is dropped (the connection is closed), however much it sends.
  void flush(Millis timeout);
  /// Bytes queued and not yet written.
  std::size_t queued() const;
  /// Raw bytes as they are (tests use it to play a broken peer).
  void send_raw(std::span<const std::uint8_t> bytes, Millis timeout);
  /// The next message within `timeout`; throws TransportError (with the peer's name) otherwise,
  /// TransportTimeout when the deadline passed. After garbage only the reading side is shut:
  /// an ERROR saying why can still be sent before close().
  /// Flushes queued output before waiting: never wait for a peer that may be waiting for us.
  Message receive(Millis timeout);
  /// A message that is already here (buffered or readable now), without waiting; nullopt otherwise.
  /// After a write failed because the peer closed, it still gives what the peer sent before.
  std::optional<Message> try_receive();
  /// The next message already read and buffered, without a system call;
  /// nullopt when none is complete.
  std::optional<Message> try_receive_buffered();
  void close();
  /// The other end, for messages: the server's address ("tcp://...", "unix:...") on a connected
  /// channel, the client ("tcp client 127.0.0.1:40312", "unix client (pid 4242)") on an accepted one.
  const std::string& peer() const;
  /// Bytes read from the peer so far.
  std::uint64_t bytes_received() const;
  /// The most bytes read and not yet taken as messages at any one time. A flush reads what the
  /// peer sends meanwhile only while this is under about one frame (kMaxFrameBytes).
  std::size_t peak_buffered() const;
  /// Called each time a wait is about to poll the socket. Tests use it to play what happens
  /// meanwhile (the peer's data arriving while this process is suspended past the deadline).
  void set_before_poll(std::function<void()> hook);
  /// Once `*stop` is true (a user asked the process to stop), a wait for the peer that has
  /// lasted kStopAfterMs throws TransportError ("stopped by a signal while waiting for ...")
  /// instead of waiting out its deadline; the flag is looked at every kStopLookMs.
  void set_stop(const std::atomic<bool>* stop);
  static constexpr int kStopLookMs = 100, kStopAfterMs = 2000;

 private:
  std::unique_ptr<Impl> m_impl;
};

/// A listening socket.
class Listener {
 public:
  /// Binds and listens; TCP uses SO_REUSEADDR. A Unix socket file left by a dead server is
  /// replaced; one that a live server accepts on is not ("address in use").
  explicit Listener(const Address& addr);
  ~Listener();
  /// The bound address (the real port when 0 was asked for).
  const Address& address() const { return m_addr; }
  /// A new connection, or nullptr when none came within `timeout`. Throws TransportError when
  /// accepting fails (e.g. out of file descriptors); the listener stays usable.
  std::unique_ptr<Channel> accept(Millis timeout);
  /// Stops listening; removes the Unix socket file if it is still the one this listener made.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
  Address m_addr;
};

}  // namespace mxc::transport
