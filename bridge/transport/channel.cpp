#include "bridge/transport/channel.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <boost/asio/connect.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/write.hpp>
#include <optional>
#include <thread>

namespace mxc::transport {

namespace asio = boost::asio;
using GenericSocket = asio::generic::stream_protocol::socket;
using GenericAcceptor = asio::basic_socket_acceptor<asio::generic::stream_protocol>;

namespace {

asio::generic::stream_protocol::endpoint endpoint_of(const Address& a) {
  if (a.kind == Address::Kind::kUnix) return asio::local::stream_protocol::endpoint(a.path);
  boost::system::error_code ec;
  if (const auto ip = asio::ip::make_address(a.host, ec); !ec) return asio::ip::tcp::endpoint(ip, a.port);
  // A host name: its first address in the resolver's order, so the server and its clients on
  // one machine pick the same one every time.
  asio::io_context io;
  asio::ip::tcp::resolver resolver(io);
  const auto found = resolver.resolve(a.host, std::to_string(a.port), asio::ip::tcp::resolver::numeric_service, ec);
  if (ec || found.empty())
    throw TransportError("address '" + a.to_string() + "': host '" + a.host + "' does not resolve" +
                         (ec ? " (" + ec.message() + ")" : std::string()));
  return found.begin()->endpoint();
}

// Runs one asynchronous operation on `io` with a deadline. Returns false on
// timeout (the operation is cancelled and drained first).
template <class Start, class Cancel>
bool run_with_deadline(asio::io_context& io, Millis timeout, Start&& start, Cancel&& cancel) {
  bool done = false;
  io.restart();
  start(done);
  io.run_for(timeout);
  if (done) return true;
  cancel();
  io.restart();
  io.run();
  return false;
}

}  // namespace

std::string seconds_text(Millis t) {
  if (t.count() < 0) return "-" + seconds_text(-t);
  std::string s = std::to_string(t.count() / 1000);
  if (const auto ms = t.count() % 1000) {
    s += "." + std::to_string(1000 + ms).substr(1);  // three digits, then without trailing zeros
    s.erase(s.find_last_not_of('0') + 1);
  }
  return s + " s";
}

struct Channel::Impl {
  asio::io_context io;
  GenericSocket socket{io};
  std::string peer;
  FrameDecoder decoder;
  std::vector<std::uint8_t> out;  // queued frames, reused
  std::array<std::uint8_t, 1 << 16> buf{};
  std::uint64_t bytes_in = 0;
  std::size_t peak_buffered = 0;  // most bytes the decoder held at once
  std::string bad_input;          // why reading stopped (garbage came); the write side stays open
  std::function<void()> before_poll;  // test seam (Channel::set_before_poll)
  const std::atomic<bool>* stop = nullptr;  // Channel::set_stop
  std::optional<std::chrono::steady_clock::time_point> stop_seen;  // when a wait first saw it set

  // Reads and writes go straight to the (non-blocking) descriptor with poll()
  // for the deadline: an io_context round per operation costs more than the
  // system calls themselves, and an exchange is only a few of them.
  int fd() { return socket.native_handle(); }
  [[noreturn]] void closed() {
    socket.close();
    try {
      decoder.finish();
    } catch (const ProtocolError& e) {
      throw TransportError("transport: garbage from " + peer + ": " + e.what());
    }
    throw TransportError("transport: " + peer + " closed the connection (peer died or quit)");
  }
  // Reads what is there now into the decoder; false if nothing (would block).
  bool read_some() {
    for (;;) {
      const ssize_t n = ::recv(fd(), buf.data(), buf.size(), 0);
      if (n > 0) {
        bytes_in += static_cast<std::uint64_t>(n);
        decoder.feed(std::span<const std::uint8_t>(buf.data(), static_cast<std::size_t>(n)));
        peak_buffered = std::max(peak_buffered, decoder.pending());
        return true;
      }
      if (n == 0) closed();
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
      if (errno == ECONNRESET) closed();
      const std::string why = std::strerror(errno);
      socket.close();
      throw TransportError("transport: receiving from " + peer + " failed: " + why + " (peer died?)");
    }
  }
  // Bytes that cannot be framed: nothing after them can be read as messages, so reading stops,
  // but the write side stays open for the ERROR that tells the peer why (close() ends it).
  [[noreturn]] void garbage(const ProtocolError& e) {
    if (bad_input.empty() && socket.is_open()) ::shutdown(fd(), SHUT_RD);
    bad_input = "transport: garbage from " + peer + ": " + e.what();
    throw TransportError(bad_input);
  }
  // The next buffered message; throws once the input went bad.
  std::optional<Message> next_buffered() {
    if (!bad_input.empty()) throw TransportError(bad_input);
    try {
      return decoder.next();
    } catch (const ProtocolError& e) {
      garbage(e);
    }
  }
  // After a receive's deadline: a message the peer sent meanwhile, read without waiting. A process
  // suspended (SIGSTOP, a debugger) past its deadline finds on resuming what a live peer sent long
  // ago. At most about one frame is read, so a peer that never stops sending cannot keep it here.
  std::optional<Message> last_look() {
    const std::uint64_t limit = bytes_in + kMaxFrameBytes + kLengthBytes;
    while (socket.is_open() && bytes_in < limit && read_some())
      if (auto m = next_buffered()) return m;
    return next_buffered();
  }
  // Waits until the descriptor is ready for `events` or the deadline; returns the ready events (0 = timeout).
  // Past the deadline it says timeout even when the descriptor is ready: a peer that never stops
  // sending would otherwise keep a waiting flush going for ever.
  short wait(short events, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      const auto left = std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now()).count();
      pollfd p{fd(), events, 0};
      if (before_poll) before_poll();
      // Waits for the peer kStopAfterMs after a stop was first seen give way to it: a live
      // peer answers sooner, and the caller's own stop path (which keeps its results) runs
      // then; one that does not (a peer never joined, or stalled, heartbeats or not) is not
      // waited out. Sends are never cut: a client that stops tells the server so.
      const bool stoppable = stop && events == POLLIN;
      if (stoppable && stop->load(std::memory_order_relaxed)) {
        const auto now = std::chrono::steady_clock::now();
        if (!stop_seen) stop_seen = now;
        if (now - *stop_seen >= Millis(Channel::kStopAfterMs))
          throw TransportError("transport: stopped by a signal while waiting for " + peer);
      }
      // Polled in short slices then: the signal may be handled by another thread, leaving
      // this poll uninterrupted.
      const long long slice = stoppable ? std::min<long long>(left + 1, Channel::kStopLookMs) : left + 1;
      const int r = ::poll(&p, 1, static_cast<int>(std::clamp<long long>(slice, 0, 1 << 30)));
      if (r > 0) {
        if (std::chrono::steady_clock::now() >= deadline) return 0;
        return p.revents ? p.revents : events;
      }
      if (r == 0) {
        if (std::chrono::steady_clock::now() >= deadline) return 0;
        continue;
      }
      if (errno != EINTR) return 0;
    }
  }
};

Channel::Channel(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {
  if (m_impl->socket.is_open()) m_impl->socket.non_blocking(true);
}
Channel::~Channel() = default;

std::unique_ptr<Channel> Channel::connect(const Address& addr, Millis timeout) {
  auto impl = std::make_unique<Impl>();
  impl->peer = addr.to_string();
  const auto ep = endpoint_of(addr);
  // One attempt with `left` to go; false when it ran out of time.
  boost::system::error_code ec;
  const auto attempt = [&](Millis left) {
    return run_with_deadline(
        impl->io, left,
        [&](bool& done) {
          impl->socket.async_connect(ep, [&](const boost::system::error_code& e) {
            ec = e;
            done = true;
          });
        },
        [&] { impl->socket.close(); });
  };
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::ceil<Millis>(deadline - std::chrono::steady_clock::now());  // never early
    if (left.count() <= 0 || !attempt(left)) {
      if (ec)
        throw TransportError("transport: no server accepted at " + impl->peer + " within " + seconds_text(timeout) +
                             " (" + ec.message() + ")");
      throw TransportError("transport: connecting to " + impl->peer + " timed out after " + seconds_text(timeout));
    }
    // No server there yet (its socket file not made, its port not open): one started just
    // before this client, as a script does, may still be on its way; try again until the deadline.
    const bool not_yet =
        ec == boost::asio::error::connection_refused || ec == boost::system::errc::no_such_file_or_directory;
    if (!not_yet) break;
    impl->socket.close();
    std::this_thread::sleep_for(std::min(Millis(50), left));
  }
  if (ec) throw TransportError("transport: cannot connect to " + impl->peer + ": " + ec.message());
  if (addr.kind == Address::Kind::kTcp) impl->socket.set_option(asio::ip::tcp::no_delay(true));
  return std::make_unique<Channel>(std::move(impl));
}

void Channel::queue(const Message& m) { encode_into(m_impl->out, m); }

std::size_t Channel::queued() const { return m_impl->out.size(); }

void Channel::send(const Message& m, Millis timeout) {
  queue(m);
  flush(timeout);
}

void Channel::send_raw(std::span<const std::uint8_t> bytes, Millis timeout) {
  m_impl->out.insert(m_impl->out.end(), bytes.begin(), bytes.end());
  flush(timeout);
}

void Channel::flush(Millis timeout) {
  Impl& s = *m_impl;
  if (s.out.empty()) return;
  if (!s.socket.is_open()) throw TransportError("transport: connection to " + s.peer + " is closed");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t done = 0;
  while (done < s.out.size()) {
    const ssize_t n = ::send(s.fd(), s.out.data() + done, s.out.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      const int err = errno;
      s.out.clear();
      if (err == EPIPE || err == ECONNRESET) {
        // What the peer sent before it closed (its ERROR, say) stays for
        // try_receive(); closing without reading it would drop it.
        try {
          while (s.bad_input.empty() && s.read_some()) {
          }
        } catch (const TransportError&) {  // its end of stream, or a frame it cut short
        }
        if (s.socket.is_open()) s.socket.close();
        throw TransportError("transport: " + s.peer + " closed the connection (peer died or quit)");
      }
      s.socket.close();
      throw TransportError("transport: sending to " + s.peer + " failed: " + std::strerror(err) + " (peer died?)");
    }
    // Full: take the peer's data meanwhile, so that its own writes cannot block it forever; but
    // only about one frame of it, as nothing is decoded here: a peer that writes and never reads
    // would otherwise fill our memory. Past that its writes wait, as ours do.
    const bool take = s.bad_input.empty() && s.decoder.pending() < kMaxFrameBytes + kLengthBytes;
    const short ev = s.wait(take ? POLLOUT | POLLIN : POLLOUT, deadline);
    if (ev == 0) {
      // Part of a frame may have gone out: nothing more can be sent on this stream.
      s.out.clear();
      s.socket.close();
      throw TransportError("transport: " + s.peer + " did not take data for " + seconds_text(timeout) + " (stalled)");
    }
    if (take && (ev & POLLIN)) s.read_some();
  }
  s.out.clear();
}

std::optional<Message> Channel::try_receive_buffered() { return m_impl->next_buffered(); }

std::optional<Message> Channel::try_receive() {
  Impl& s = *m_impl;
  for (int pass = 0; pass < 2; ++pass) {
    if (auto m = s.next_buffered()) return m;
    if (pass == 0 && (!s.socket.is_open() || !s.read_some())) break;
  }
  return std::nullopt;
}

Message Channel::receive(Millis timeout) {
  Impl& s = *m_impl;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (auto m = s.next_buffered()) return std::move(*m);
    if (!s.socket.is_open()) throw TransportError("transport: connection to " + s.peer + " is closed");
    // A flush that had to wait read what the peer sent meanwhile: look in
    // the decoder again before waiting for more, or a message already here
    // would wait for the deadline behind a peer that is waiting for us.
    const std::uint64_t before = s.bytes_in;
    flush(timeout);
    if (s.bytes_in != before || s.read_some()) continue;
    if (s.wait(POLLIN, deadline) != 0) continue;
    if (auto m = s.last_look()) return std::move(*m);
    throw TransportTimeout("transport: no message from " + s.peer + " within " + seconds_text(timeout) +
                           " (peer stalled or dead)");
  }
}

void Channel::close() {
  boost::system::error_code ec;
  m_impl->socket.shutdown(asio::socket_base::shutdown_both, ec);
  m_impl->socket.close(ec);
}

const std::string& Channel::peer() const { return m_impl->peer; }

std::uint64_t Channel::bytes_received() const { return m_impl->bytes_in; }

std::size_t Channel::peak_buffered() const { return m_impl->peak_buffered; }

void Channel::set_before_poll(std::function<void()> hook) { m_impl->before_poll = std::move(hook); }
void Channel::set_stop(const std::atomic<bool>* stop) { m_impl->stop = stop; }

struct Listener::Impl {
  asio::io_context io;
  GenericAcceptor acceptor{io};
  std::string unix_path;
  struct stat bound {};  // the socket file this listener made (unlinked on close only if still there)
};

namespace {

// Whether a server accepts connections on the Unix socket at `path` (a refused or failed
// connect: the file was left by a server that is gone).
bool unix_socket_in_use(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.c_str(), std::min(path.size(), sizeof sa.sun_path - 1));
  const int r = ::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa);
  // EAGAIN: a listener whose backlog is full, so one that is alive.
  const bool in_use = r == 0 || errno == EAGAIN || errno == EINPROGRESS;
  ::close(fd);
  return in_use;
}

// Who is at the other end of an accepted connection, for messages: the address of a TCP
// client, the process of a Unix one (the socket has no name of its own).
std::string client_name(int fd, Address::Kind kind) {
  if (kind == Address::Kind::kUnix) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return "unix client";
    return "unix client (pid " + std::to_string(cred.pid) + ")";
  }
  sockaddr_storage sa{};
  socklen_t len = sizeof sa;
  char host[INET6_ADDRSTRLEN] = {};
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) return "tcp client";
  if (sa.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&sa);
    if (!::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host)) return "tcp client";
    return "tcp client " + std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
  }
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&sa);
  if (sa.ss_family != AF_INET6 || !::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host)) return "tcp client";
  return "tcp client [" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
}

}  // namespace

Listener::Listener(const Address& addr) : m_impl(std::make_unique<Impl>()), m_addr(addr) {
  const auto ep = endpoint_of(addr);
  if (addr.kind == Address::Kind::kUnix) {
    // A socket file left by a dead server would make bind fail; replace only sockets, and
    // only when nobody accepts on them (another server's would be taken from it).
    struct stat st {};
    const bool exists = ::lstat(addr.path.c_str(), &st) == 0;
    // bind() would say "address in use" of any file there: say what is in the way.
    if (exists && !S_ISSOCK(st.st_mode))
      throw TransportError("transport: cannot listen on " + addr.to_string() + ": " + addr.path + " is a " +
                           (S_ISDIR(st.st_mode) ? "directory" : "file") +
                           ", not a socket (remove it, or listen on another path)");
    if (exists) {
      if (unix_socket_in_use(addr.path))
        throw TransportError("transport: cannot listen on " + addr.to_string() +
                             ": address in use (another server accepts connections there)");
      ::unlink(addr.path.c_str());
    }
  }
  try {
    m_impl->acceptor.open(ep.protocol());
    if (addr.kind == Address::Kind::kTcp) m_impl->acceptor.set_option(asio::socket_base::reuse_address(true));
    m_impl->acceptor.bind(ep);
    m_impl->acceptor.listen();
  } catch (const boost::system::system_error& e) {
    throw TransportError("transport: cannot listen on " + addr.to_string() + ": " + e.code().message());
  }
  if (addr.kind == Address::Kind::kUnix && ::lstat(addr.path.c_str(), &m_impl->bound) == 0)
    m_impl->unix_path = addr.path;
  if (addr.kind == Address::Kind::kTcp) {
    const auto local = m_impl->acceptor.local_endpoint();
    const sockaddr* sa = local.data();
    if (sa->sa_family == AF_INET) m_addr.port = ntohs(reinterpret_cast<const sockaddr_in*>(sa)->sin_port);
    if (sa->sa_family == AF_INET6) m_addr.port = ntohs(reinterpret_cast<const sockaddr_in6*>(sa)->sin6_port);
  }
}

Listener::~Listener() { close(); }

std::unique_ptr<Channel> Listener::accept(Millis timeout) {
  boost::system::error_code ec;
  // The connection's socket lives on its own io_context; accept through ours, then move the handle.
  GenericSocket tmp(m_impl->io);
  const bool ok = run_with_deadline(
      m_impl->io, timeout,
      [&](bool& done) {
        m_impl->acceptor.async_accept(tmp, [&](const boost::system::error_code& e) {
          ec = e;
          done = true;
        });
      },
      [&] { m_impl->acceptor.cancel(); });
  if (!ok || ec == asio::error::operation_aborted) return nullptr;
  // Out of descriptors (EMFILE) and the like: the caller decides how to wait and retry.
  if (ec) throw TransportError("transport: accepting on " + m_addr.to_string() + " failed: " + ec.message());
  try {
    auto impl = std::make_unique<Channel::Impl>();
    Channel::Impl* c = impl.get();
    const auto proto = tmp.local_endpoint().protocol();
    c->socket.assign(proto, tmp.release());
    if (m_addr.kind == Address::Kind::kTcp) c->socket.set_option(asio::ip::tcp::no_delay(true));
    c->peer = client_name(c->fd(), m_addr.kind);
    return std::make_unique<Channel>(std::move(impl));
  } catch (const boost::system::system_error& e) {
    // The connection is closed (the peer sees its end); nothing else is lost.
    throw TransportError("transport: accepting on " + m_addr.to_string() + " failed: " + e.code().message());
  }
}

void Listener::close() {
  boost::system::error_code ec;
  if (m_impl->acceptor.is_open()) {
    m_impl->acceptor.close(ec);
    // Only the socket this listener made: a file put there since is someone else's.
    struct stat st {};
    if (!m_impl->unix_path.empty() && ::lstat(m_impl->unix_path.c_str(), &st) == 0 &&
        st.st_dev == m_impl->bound.st_dev && st.st_ino == m_impl->bound.st_ino)
      ::unlink(m_impl->unix_path.c_str());
  }
}

}  // namespace mxc::transport
