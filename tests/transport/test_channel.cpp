// The channel on its own: queued frames go out in one flush and arrive whole
// and in order; two peers that write more than the socket buffers hold at the
// same moment both finish (each reads while it waits to write), where plain
// blocking writes would wait for each other until the deadline.
#include <catch2/catch.hpp>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "bridge/transport/channel.h"
#include "server_fixture.h"

using namespace mxc;
using namespace mxc::transport;
using mxc::transport::testing::socket_path;

namespace {

// A connected pair over a Unix socket.
struct Pair {
  Listener listener;
  std::unique_ptr<Channel> a, b;
  explicit Pair(const std::string& tag) : listener(parse_address("unix:" + socket_path(tag))) {
    std::thread t([&] { b = listener.accept(Millis(5000)); });
    a = Channel::connect(listener.address(), Millis(5000));
    t.join();
    REQUIRE(b);
  }
};

BackdoorMsg big(std::uint32_t chip, std::size_t bytes) {
  return BackdoorMsg{chip, 0, true, static_cast<std::uint32_t>(bytes),
                     std::vector<std::uint8_t>(bytes, static_cast<std::uint8_t>(chip))};
}

}  // namespace

TEST_CASE("channel: queued frames are written by one flush, whole and in order") {
  Pair p("queue");
  for (std::uint64_t i = 0; i < 100; ++i) p.a->queue(SyncMsg{static_cast<std::uint32_t>(i), i * 1000});
  CHECK(p.a->queued() > 0);
  CHECK_FALSE(p.b->try_receive().has_value());  // nothing written yet
  p.a->flush(Millis(2000));
  CHECK(p.a->queued() == 0);
  for (std::uint64_t i = 0; i < 100; ++i) {
    const Message m = p.b->receive(Millis(2000));
    REQUIRE(std::holds_alternative<SyncMsg>(m));
    CHECK(std::get<SyncMsg>(m).target == i);
    CHECK(std::get<SyncMsg>(m).time == i * 1000);
  }
  CHECK_FALSE(p.b->try_receive().has_value());
}

TEST_CASE("channel: two peers writing more than the buffers hold at once both finish") {
  Pair p("both-write");
  constexpr int kFrames = 8;
  constexpr std::size_t kBytes = 1u << 20;  // 8 MiB each way, far beyond the socket buffers
  std::string error_b;
  int got_b = 0;
  std::thread tb([&] {
    try {
      for (int i = 0; i < kFrames; ++i) p.b->queue(big(2, kBytes));
      p.b->flush(Millis(5000));
      for (; got_b < kFrames; ++got_b) {
        const Message m = p.b->receive(Millis(5000));
        if (!std::holds_alternative<BackdoorMsg>(m) || std::get<BackdoorMsg>(m).data.size() != kBytes) break;
      }
    } catch (const std::exception& e) {
      error_b = e.what();
    }
  });
  for (int i = 0; i < kFrames; ++i) p.a->queue(big(1, kBytes));
  CHECK_NOTHROW(p.a->flush(Millis(5000)));
  int got_a = 0;
  for (; got_a < kFrames; ++got_a) {
    const Message m = p.a->receive(Millis(5000));
    REQUIRE(std::holds_alternative<BackdoorMsg>(m));
    CHECK(std::get<BackdoorMsg>(m).chip == 2);
    CHECK(std::get<BackdoorMsg>(m).data.size() == kBytes);
  }
  tb.join();
  CHECK(error_b.empty());
  CHECK(got_a == kFrames);
  CHECK(got_b == kFrames);
}

TEST_CASE("channel: a peer gone while we write is reported as a closed connection") {
  Pair p("gone");
  p.b->close();
  for (int i = 0; i < 8; ++i) p.a->queue(big(1, 1u << 20));
  CHECK_THROWS_WITH(p.a->flush(Millis(2000)), Catch::Contains("closed the connection"));
}

TEST_CASE("channel: a message that came in while a long write waited is received at once") {
  Pair p("read-during-flush");
  // a writes more than the buffers hold; b sends its message while a waits to
  // write, then reads a's data and sends nothing more.
  std::thread peer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    p.b->send(HeartbeatMsg{}, Millis(2000));
    p.b->receive(Millis(30'000));
  });
  p.a->queue(big(1, 8u << 20));
  const auto start = std::chrono::steady_clock::now();
  std::optional<Message> m;
  std::string error;
  try {
    m = p.a->receive(Millis(30'000));  // flushes first, then its message
  } catch (const TransportError& e) {
    error = e.what();
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  peer.join();
  CHECK(error == "");
  CHECK((m && std::holds_alternative<HeartbeatMsg>(*m)));
  // Before: read during the flush, then waited out the deadline for it. Half the deadline leaves
  // a loaded machine room for the 200 ms sleep and the 8 MiB transfer.
  CHECK(waited < 15.0);
}

TEST_CASE("channel: a message that came while this process was suspended past the deadline is received") {
  Pair p("suspended");
  // The peer's HEARTBEAT arrives just as the wait polls, and the deadline (0 ms) is then past:
  // as for a process stopped in its wait and resumed after the deadline.
  bool sent = false;
  p.a->set_before_poll([&] {
    if (!sent) p.b->send(HeartbeatMsg{}, Millis(2000));
    sent = true;
  });
  std::optional<Message> m;
  CHECK_NOTHROW(m = p.a->receive(Millis(0)));
  CHECK(sent);
  CHECK((m && std::holds_alternative<HeartbeatMsg>(*m)));
  // Nothing there at the deadline is still a timeout.
  CHECK_THROWS_AS(p.a->receive(Millis(0)), TransportTimeout);
}

TEST_CASE("channel: what a peer said before it closed is still read after a write to it fails") {
  Pair p("said-then-gone");
  p.b->send(ErrorMsg{"refused: request in the past"}, Millis(2000));
  p.b->close();
  // The write runs into the closed connection; the ERROR before it is kept.
  for (int i = 0; i < 8; ++i) p.a->queue(big(1, 1u << 20));
  CHECK_THROWS_WITH(p.a->flush(Millis(2000)), Catch::Contains("closed the connection"));
  const auto said = p.a->try_receive();
  REQUIRE(said.has_value());
  REQUIRE(std::holds_alternative<ErrorMsg>(*said));
  CHECK(std::get<ErrorMsg>(*said).text == "refused: request in the past");
  CHECK_FALSE(p.a->try_receive().has_value());
}

TEST_CASE("channel: a listener on a path where a file that is not a socket lies names what is in the way") {
  const std::string file = socket_path("regular-file");
  { std::ofstream(file) << "not a socket"; }
  CHECK_THROWS_WITH(Listener(parse_address("unix:" + file)),
                    Catch::Contains(file + " is a file, not a socket") && !Catch::Contains("already in use"));
  std::remove(file.c_str());
  const std::string dir = socket_path("directory");
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  CHECK_THROWS_WITH(Listener(parse_address("unix:" + dir)), Catch::Contains(dir + " is a directory, not a socket"));
  ::rmdir(dir.c_str());
}

TEST_CASE("channel: deadlines are given in seconds as one would write them") {
  // The server's and the channel's messages once wrote these differently ("10 s", "10.00 s",
  // and "3600. s" for 3600.5).
  CHECK(seconds_text(Millis(300)) == "0.3 s");
  CHECK(seconds_text(Millis(1)) == "0.001 s");
  CHECK(seconds_text(Millis(10'000)) == "10 s");
  CHECK(seconds_text(Millis(30'250)) == "30.25 s");
  CHECK(seconds_text(Millis(3'600'500)) == "3600.5 s");
  CHECK(seconds_text(Millis(86'400'000)) == "86400 s");
  CHECK(seconds_text(Millis(0)) == "0 s");
}

TEST_CASE("channel: a client started before its server waits for it, up to the connect deadline") {
  // A script starts the server in the background and the client at once: the socket file
  // is not there yet when the client first tries.
  const std::string path = socket_path("late-server");
  std::unique_ptr<Channel> served;
  std::thread server([&] {
    std::this_thread::sleep_for(Millis(300));
    Listener listener(parse_address("unix:" + path));
    served = listener.accept(Millis(5000));
  });
  const auto client = Channel::connect(parse_address("unix:" + path), Millis(5000));
  server.join();
  REQUIRE(served);
  client->send(big(1, 10), Millis(2000));
  CHECK(std::holds_alternative<BackdoorMsg>(served->receive(Millis(2000))));

  // With no server at all the client gives up at its deadline, saying why.
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(Channel::connect(parse_address("unix:" + socket_path("no-server")), Millis(300)),
                    Catch::Contains("no server accepted at unix:") &&
                        Catch::Contains("within 0.3 s (No such file or directory)"));
  CHECK(std::chrono::steady_clock::now() - t0 >= Millis(300));
}

TEST_CASE("channel: a peer that writes and never reads is dropped at the deadline, holding about a frame") {
  // The peer is a raw socket that sends heartbeats as fast as it can and reads nothing. While
  // a flush waited for it, the channel once took in all it sent (gigabytes for a server) and,
  // as input kept coming, waited past its deadline.
  const std::string path = socket_path("flood");
  Listener listener(parse_address("unix:" + path));
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.c_str(), path.size());
  REQUIRE(::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) == 0);
  auto ch = listener.accept(Millis(5000));
  REQUIRE(ch);
  std::atomic<bool> stop{false};
  std::uint64_t sent = 0;
  std::thread flood([&] {
    std::vector<std::uint8_t> chunk;
    for (int i = 0; i < 16384; ++i) encode_into(chunk, HeartbeatMsg{});
    // 256 MiB at most, well past the bound, so that a channel without it does not take all memory.
    while (!stop && sent < (256u << 20)) {
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) sent += static_cast<std::uint64_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) break;  // dropped
    }
  });
  for (int i = 0; i < 8; ++i) ch->queue(big(1, 1u << 20));
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(ch->flush(Millis(1000)), Catch::Contains("did not take data for 1 s (stalled)"));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stop = true;
  flood.join();
  ::close(fd);
  CHECK(took < 6.0);  // the deadline, with room for a loaded machine
  CHECK(ch->peak_buffered() <= kMaxFrameBytes + kLengthBytes + (1u << 16));  // a frame and one read
  CHECK(sent > kMaxFrameBytes);  // the peer did send more than that
  // The stream may end inside a frame now: nothing more goes out on it.
  CHECK_THROWS_WITH(ch->send(HeartbeatMsg{}, Millis(1000)), Catch::Contains("is closed"));
}

TEST_CASE("channel: a TCP address may name its host, which must resolve") {
  // parse_address reads localhost as 127.0.0.1 itself; this one goes through the resolver.
  Address named;
  named.host = "localhost";
  Listener listener(named);
  CHECK(listener.address().port != 0);
  std::unique_ptr<Channel> served;
  std::thread server([&] { served = listener.accept(Millis(5000)); });
  const auto client = Channel::connect(listener.address(), Millis(5000));
  server.join();
  REQUIRE(served);
  client->send(big(3, 10), Millis(2000));
  const Message m = served->receive(Millis(2000));
  REQUIRE(std::holds_alternative<BackdoorMsg>(m));
  CHECK(std::get<BackdoorMsg>(m).chip == 3);

  const Address nowhere = parse_address("tcp://nosuchhost.invalid:7000");
  const auto names_host = Catch::Contains("address 'tcp://nosuchhost.invalid:7000': host 'nosuchhost.invalid' "
                                          "does not resolve");
  CHECK_THROWS_WITH(Channel::connect(nowhere, Millis(2000)), names_host);
  CHECK_THROWS_WITH(Listener(nowhere), names_host);
}
