// Client and server over a Unix socket in one process: the remote memory
// behaves call for call like the same model held locally; mismatched
// handshakes are refused with the reason; a peer that dies, stalls or sends
// garbage ends the exchange with a clear error.
#include <catch2/catch.hpp>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>
#include <thread>

#include "bridge/transport/client_session.h"
#include "bridge/transport/remote_memory.h"
#include "bridge/transport/served_models.h"
#include "models/core/ideal_memory.h"
#include "child_process.h"
#include "memory_drive.h"
#include "server_fixture.h"

using namespace mxc;
using namespace mxc::transport;
using mxc::transport::testing::drive;
using mxc::transport::testing::Log;
using mxc::transport::testing::ServerThread;
using mxc::transport::testing::socket_path;

namespace {

ServedSystem ideal(Time latency_ps, std::uint32_t outstanding) {
  ServedSystem s;
  s.memory = "ideal";
  s.ideal_latency_ps = latency_ps;
  s.ideal_outstanding = outstanding;
  return s;
}

ServerOptions options(const ServedSystem& sys, std::uint64_t seed = 1) {
  ServerOptions o;
  o.system = sys;
  o.seed = seed;
  o.read_timeout = Millis(5000);
  return o;
}

ClientOptions client(const std::string& address, const ServedSystem& sys, std::uint64_t seed = 1) {
  ClientOptions c;
  c.address = address;
  c.system = sys;
  c.seed = seed;
  c.reply_timeout = Millis(5000);
  return c;
}

// A server that is not one: on its own thread it accepts one client, plays `script` to it, then
// waits until the client hangs up. Joins when it goes out of scope.
class FakeServer {
 public:
  FakeServer(const std::string& name, std::function<void(Channel&)> script)
      : m_listener(parse_address("unix:" + socket_path(name))), m_thread([this, script = std::move(script)] {
          auto c = m_listener.accept(Millis(5000));
          if (!c) return;
          try {
            script(*c);
            c->receive(Millis(5000));  // until the client hangs up
          } catch (const std::exception&) {
          }
        }) {}
  ~FakeServer() { m_thread.join(); }
  std::string address() const { return m_listener.address().to_string(); }

 private:
  Listener m_listener;
  std::thread m_thread;
};

// A fake server's side of the handshake: the client's HELLO, then `me` as the server's.
void answer_hello(Channel& c, Hello me) {
  c.receive(Millis(5000));  // HELLO
  me.role = Role::kServer;
  c.send(me, Millis(2000));
}

}  // namespace

TEST_CASE("transport: a served ideal memory completes like the local one, call for call") {
  const ServedSystem sys = ideal(50'000, 2);
  IdealMemory local("local", 50'000, 2);
  Log want;
  want.attach(local);
  drive(local);
  // Hand check of the local reference: 6 requests, 2 at a time, 50 ns each.
  REQUIRE(want.done.size() == 6);
  CHECK(std::get<1>(want.done[0]) == 50'000);
  CHECK(std::get<2>(want.done[0]) == std::vector<std::uint8_t>{1, 2});

  // Lock-step (an exchange per call) and lookahead (the proxy mirrors the contract).
  const bool lookahead = GENERATE(false, true);
  ServerThread st(options(sys), lookahead ? "call-la" : "call");
  {
    ClientOptions c = client(st.address, sys);
    c.lookahead = lookahead;
    auto s = ClientSession::connect(c);
    CHECK(s->contract().capacity == (lookahead ? 2u : 0u));
    auto remote = ClientSession::make_memory(s, 0, "remote");
    Log got;
    got.attach(*remote);
    drive(*remote);
    CHECK(got.done == want.done);
    std::vector<std::uint8_t> back(2);
    remote->backdoor_read(0x203, back);
    CHECK(back == std::vector<std::uint8_t>{3, 0});
    s->bye();
  }
  st.join();
  const auto out = st.server.outcomes();
  REQUIRE(out.size() == 1);
  CHECK(out[0].ok);
}

TEST_CASE("transport: a handshake that does not match is refused with the reason") {
  const ServedSystem sys = ideal(100'000, 64);
  ServerThread st(options(sys, 7), "hello");
  CHECK_THROWS_WITH(ClientSession::connect(client(st.address, sys, 8)),
                    Catch::Contains("seed 8 differs from the server's seed 7"));
  // The refusal shows what the server serves, so the field that differs can be found.
  CHECK_THROWS_WITH(ClientSession::connect(client(st.address, ideal(90'000, 64), 7)),
                    Catch::Contains("config hash") &&
                        Catch::Contains("different systems (the server's: 1 chip x 1 tile, ideal memory of 100000 ps "
                                        "and 64 requests in flight)"));
  ClientOptions c = client(st.address, sys, 7);
  c.chips = {3};
  CHECK_THROWS_WITH(ClientSession::connect(c), Catch::Contains("chip 3 asked for, but the served system has 1"));

  // A peer from another protocol version.
  auto ch = Channel::connect(parse_address(st.address), Millis(2000));
  Hello h;
  h.version = 99;
  h.config_hash = config_hash(sys);
  h.seed = 7;
  ch->send(h, Millis(2000));
  const Message m = ch->receive(Millis(5000));
  REQUIRE(std::holds_alternative<ErrorMsg>(m));
  CHECK_THAT(std::get<ErrorMsg>(m).text, Catch::Contains("protocol version 99 is not supported"));
}

namespace {

// A connection that says nothing (a raw socket: one descriptor in this process).
int idle_connection(const std::string& address) {
  const std::string path = parse_address(address).path;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.c_str(), path.size());
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0)
    throw std::runtime_error("cannot connect to " + address);
  return fd;
}

}  // namespace

TEST_CASE("transport: connections beyond the server's client limit are refused with the reason") {
  const ServedSystem sys = ideal(100'000, 64);
  ServerOptions o = options(sys);
  o.max_clients = 2;
  std::ostringstream log;
  o.log = &log;
  ServerThread st(o, "max-clients");
  // Two clients that connect and say nothing hold both places.
  const int idle[2] = {idle_connection(st.address), idle_connection(st.address)};
  CHECK_THROWS_WITH(ClientSession::connect(client(st.address, sys)),
                    Catch::Contains("refused: server busy: it serves at most 2 clients at once"));
  // When one leaves, its place is free again (once the server has seen it go).
  ::close(idle[0]);
  std::string error;
  for (int attempt = 0; attempt < 50; ++attempt) {
    try {
      ClientSession::connect(client(st.address, sys))->bye();
      error.clear();
      break;
    } catch (const TransportError& e) {
      error = e.what();
      std::this_thread::sleep_for(Millis(100));
    }
  }
  CHECK(error == "");
  ::close(idle[1]);
  st.join();
  CHECK_THAT(log.str(), Catch::Contains("connection from unix client (pid " + std::to_string(::getpid()) +
                                        ") refused: server busy: it serves at most 2 clients at once"));
  const auto out = st.server.outcomes();
  CHECK(std::count_if(out.begin(), out.end(), [](const SessionOutcome& x) { return x.ok; }) == 1);
}

TEST_CASE("transport: a client past a server's --sessions is told so at once, not kept waiting") {
  // It waited in the backlog until the taken session ended, then read the close as a dead peer.
  const ServedSystem sys = ideal(100'000, 64);
  ServerOptions o = options(sys);
  o.max_sessions = 1;
  o.read_timeout = Millis(60'000);  // the running session outlasts the second client's wait
  std::ostringstream log;
  o.log = &log;
  ServerThread st(o, "sessions-spent");
  const auto first = ClientSession::connect(client(st.address, sys));  // the one session, running
  ClientOptions second = client(st.address, sys);
  second.reply_timeout = Millis(30'000);  // kept waiting, it would fail only after this
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(ClientSession::connect(second),
                    Catch::Contains("refused: server ending: it serves 1 session(s) (mxcosim serve --sessions) and "
                                    "has taken them all; start another server"));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(15));
  first->bye();
  st.join();
  CHECK_THAT(log.str(), Catch::Contains("refused: server ending"));
  const auto out = st.server.outcomes();
  REQUIRE(out.size() == 1);
  CHECK(out[0].ok);
}

TEST_CASE("transport: a connection that sends no HELLO in time is closed and its place freed") {
  const ServedSystem sys = ideal(100'000, 64);
  ServerOptions o = options(sys);
  o.max_clients = 1;
  o.read_timeout = Millis(60'000);  // only the HELLO deadline can free the place in time
  o.hello_timeout = Millis(300);
  std::ostringstream log;
  o.log = &log;
  ServerThread st(o, "hello-timeout");
  const int idle = idle_connection(st.address);
  // The server tells the idle peer why, then closes: read until the end (at most 10 s).
  std::string said;
  for (const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       std::chrono::steady_clock::now() < until;) {
    pollfd p{idle, POLLIN, 0};
    char buf[256];
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(idle, buf, sizeof buf, 0);
    if (n <= 0) break;
    said.append(buf, static_cast<std::size_t>(n));
  }
  CHECK_THAT(said, Catch::Contains("no HELLO within 0.3 s of connecting (mxcosim serve --hello-timeout)"));
  // Its place is free, while this end is still open, once the server has joined its thread;
  // under load that may take a while.
  std::string error = "not tried";
  for (int attempt = 0; attempt < 100 && !error.empty(); ++attempt) {
    if (attempt) std::this_thread::sleep_for(Millis(100));
    try {
      ClientSession::connect(client(st.address, sys))->bye();
      error.clear();
    } catch (const TransportError& e) {
      error = e.what();
    }
  }
  CHECK(error == "");
  ::close(idle);
  st.join();
  CHECK_THAT(log.str(), Catch::Contains("connection from unix client (pid " + std::to_string(::getpid()) +
                                        "): no HELLO within 0.3 s of connecting") &&
                            Catch::Contains("session 1: done"));
  const auto out = st.server.outcomes();
  REQUIRE(out.size() == 1);  // the idle connection was no session
  CHECK(out[0].ok);
}

TEST_CASE("transport: sessions that start together are logged in the order of their numbers") {
  const ServedSystem sys = ideal(100'000, 64);
  ServerOptions o = options(sys);
  std::ostringstream log;
  o.log = &log;
  ServerThread st(o, "order");
  // Numbering and logging apart, the log showed "session 2: connected" before "session 1:
  // connected" now and then (more often on a loaded machine): rounds of clients at once.
  constexpr int kClients = 16, kRounds = 8;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::thread> clients;
    for (int i = 0; i < kClients; ++i)
      clients.emplace_back([&] { ClientSession::connect(client(st.address, sys))->bye(); });
    for (auto& t : clients) t.join();
  }
  st.join();
  std::istringstream lines(log.str());
  std::uint64_t next = 1;
  for (std::string line; std::getline(lines, line);)
    if (line.find(": connected from ") != std::string::npos) {
      INFO(log.str());
      REQUIRE(line.rfind("session " + std::to_string(next) + ": ", 0) == 0);
      ++next;
    }
  CHECK(next == kRounds * kClients + 1);
}

TEST_CASE("transport: a server stopped with sessions running says it waits for them and serves them to the end") {
  const ServedSystem sys = ideal(100'000, 64);
  ServerOptions o = options(sys);
  std::ostringstream log;
  o.log = &log;
  ServerThread st(o, "stopwait");
  const std::string path = socket_path("stopwait");
  auto first = ClientSession::connect(client(st.address, sys));
  auto second = ClientSession::connect(client(st.address, sys));
  st.server.stop();
  // The socket file goes once the server has stopped accepting, after its line; both sessions
  // still wait for their clients, so nothing else writes the log meanwhile.
  for (int i = 0; i < 500 && std::filesystem::exists(path); ++i) std::this_thread::sleep_for(Millis(10));
  REQUIRE_FALSE(std::filesystem::exists(path));
  CHECK(log.str().find("stopping: no new connections; waiting for 2 running sessions to end") != std::string::npos);
  // The sessions still run: a served memory answers as the same model held locally.
  IdealMemory local("local", 100'000, 64);
  Log want, got;
  want.attach(local);
  drive(local);
  {
    auto remote = ClientSession::make_memory(first, 0, "remote");
    got.attach(*remote);
    drive(*remote);
  }
  CHECK(got.done == want.done);
  first->bye();
  second->bye();
  st.join();
  INFO(log.str());
  CHECK(log.str().find("session 1: done") != std::string::npos);
  CHECK(log.str().find("session 2: done") != std::string::npos);
}

TEST_CASE("transport: a server out of file descriptors waits for them and serves on, never aborts") {
  // The server runs in a child process whose descriptor limit a flood of idle connections
  // exceeds (the client limit set high, so that only the descriptors run out).
#if defined(__SANITIZE_ADDRESS__)
  // The sanitizers' runtime needs descriptors of its own (a pipe to test whether memory can be
  // read), so with none left its own checks fail: the ordinary build runs this test.
  WARN("skipped in a sanitizer build: the sanitizers need descriptors the test takes away");
  return;
#endif
  const ServedSystem sys = ideal(100'000, 64);
  const std::string address = "unix:" + socket_path("nofile");
  int ready[2], stop[2];  // stop: a socket pair, so that telling a dead child to stop raises no SIGPIPE
  REQUIRE(pipe(ready) == 0);
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, stop) == 0);
  const auto server = mxc::transport::testing::fork_child([&] {
    ::close(ready[0]);
    ::close(stop[1]);
    ServerOptions o = options(sys);
    o.max_clients = 4096;
    std::ostringstream log;
    o.log = &log;
    Server srv(o);
    srv.listen(address);
    rlimit lim{};
    getrlimit(RLIMIT_NOFILE, &lim);
    const auto open = std::distance(std::filesystem::directory_iterator("/proc/self/fd"), {});
    lim.rlim_cur = static_cast<rlim_t>(open + 24);
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) return std::string("error: setrlimit");
    std::thread serving([&] { srv.serve(); });
    char byte = 1;
    if (write(ready[1], &byte, 1) != 1 || read(stop[0], &byte, 1) != 1) byte = 0;
    srv.stop();
    serving.join();
    return log.str();
  });
  ::close(ready[1]);
  ::close(stop[0]);
  char byte = 0;
  REQUIRE(read(ready[0], &byte, 1) == 1);
  std::vector<int> flood;
  for (int i = 0; i < 64; ++i) flood.push_back(idle_connection(address));
  std::this_thread::sleep_for(Millis(500));  // the server runs out of descriptors meanwhile
  for (int fd : flood) ::close(fd);
  // The server frees its descriptors as it sees the flood's connections close; a client that
  // comes before it has may be turned away, so it tries again for up to 10 s, as a user would.
  std::string error = "not tried";
  for (int attempt = 0; attempt < 100 && !error.empty(); ++attempt) {
    if (attempt) std::this_thread::sleep_for(Millis(100));
    try {
      ClientSession::connect(client(address, sys))->bye();
      error.clear();
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  CHECK(error == "");
  (void)::send(stop[1], &byte, 1, MSG_NOSIGNAL);
  const std::string log = mxc::transport::testing::collect(server);
  CHECK_THAT(log, !Catch::Contains("exited abnormally"));
  CHECK_THAT(log, Catch::Contains("failed: Too many open files; retrying every 100 ms"));
  ::close(ready[0]);
  ::close(stop[1]);
}

TEST_CASE("transport: a server does not take over a live server's Unix socket, nor remove another's") {
  const ServedSystem sys = ideal(100'000, 64);
  const std::string path = socket_path("in-use");
  {
    ServerOptions o = options(sys);
    o.max_sessions = 1;
    std::ostringstream log;
    o.log = &log;
    ServerThread first(o, "in-use");
    Server second(options(sys));
    CHECK_THROWS_WITH(second.listen(first.address), Catch::Contains("cannot listen on " + first.address) &&
                                                        Catch::Contains("address in use"));
    // The first still serves there, and the second's check was no session of its one,
    // nor does its log show one: the client is session 1, and the only one.
    ClientSession::connect(client(first.address, sys))->bye();
    first.join();
    const auto out = first.server.outcomes();
    REQUIRE(out.size() == 1);
    CHECK(out[0].ok);
    CHECK_THAT(log.str(), Catch::Contains("session 1: connected") && Catch::Contains("session 1: done") &&
                              !Catch::Contains("session 2") && !Catch::Contains("connection"));
  }
  // The path given to another server meanwhile (say the file was removed by hand): the first
  // server, when it stops, leaves the other's socket alone.
  ServerThread first(options(sys), "in-use");
  ::unlink(path.c_str());
  ServerThread other(options(sys), "in-use");
  first.join();
  struct stat st {};
  CHECK(::lstat(path.c_str(), &st) == 0);
  ClientSession::connect(client(other.address, sys))->bye();
  // A socket file that nobody accepts on (its server died) is replaced, as before.
  other.join();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.c_str(), path.size());
  REQUIRE(::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) == 0);
  ::close(fd);
  ServerThread last(options(sys), "in-use");
  ClientSession::connect(client(last.address, sys))->bye();
}

TEST_CASE("transport: a server's HELLO that serves other than the client needs fails the connection") {
  // Fake servers answering the handshake: memories of another chip, or no fabric for a split run.
  ServedSystem sys = ideal(100'000, 64);
  sys.chips = 2;
  sys.ici_config = std::string(MXCOSIM_SOURCE_DIR) + "/configs/ici/ring4.yaml";
  for (const bool split : {false, true}) {
    FakeServer fake(split ? "hello-split" : "hello-chips", [&](Channel& c) {
      Hello me;
      me.chips = split ? std::vector<std::uint32_t>{} : std::vector<std::uint32_t>{1};
      me.fabric_chips = split ? 0 : 2;
      answer_hello(c, me);
    });
    ClientOptions c = client(fake.address(), sys);
    c.chips = {0};
    c.split = split;
    if (split)
      CHECK_THROWS_WITH(ClientSession::connect(c),
                        Catch::Contains("serves no fabric, and a split run needs it"));
    else
      CHECK_THROWS_WITH(ClientSession::connect(c),
                        Catch::Contains("serves the memories of chip(s) 1, this client asked for 0"));
  }
}

TEST_CASE("transport: garbage from a client ends its session with the decoder's reason") {
  ServerOptions o = options(ideal(100'000, 64));
  std::ostringstream log;
  o.log = &log;
  ServerThread st(o, "garbage-in");
  auto ch = Channel::connect(parse_address(st.address), Millis(2000));
  ch->send_raw(std::vector<std::uint8_t>{0xff, 0xff, 0xff, 0xff, 1, 2, 3}, Millis(2000));
  // The server stops reading but still says why before it closes (once a bare close).
  const Message said = ch->receive(Millis(5000));
  REQUIRE(std::holds_alternative<ErrorMsg>(said));
  CHECK_THAT(std::get<ErrorMsg>(said).text,
             Catch::StartsWith("the server ended this session: transport: garbage from unix client") &&
                 Catch::Contains("bad frame length 4294967295"));
  CHECK_THROWS_WITH(ch->receive(Millis(5000)), Catch::Contains("closed the connection"));
  st.join();
  const auto out = st.server.outcomes();
  REQUIRE(out.size() == 1);
  CHECK_THAT(out[0].error, Catch::Contains("garbage") && Catch::Contains("bad frame length 4294967295"));
  // No message came, so no "connected" line named the peer: the session's one line does.
  CHECK_THAT(log.str(), Catch::Contains("session 1: connection from unix client (pid " + std::to_string(::getpid()) +
                                        ") failed: transport: garbage from") &&
                            Catch::Contains("after 0 messages"));
}

namespace {

/// A raw connection past the handshake (a client of chip 0 with seed 1),
/// to send the server what a ClientSession would not.
std::unique_ptr<Channel> greeted_channel(const std::string& address, const ServedSystem& sys) {
  auto ch = Channel::connect(parse_address(address), Millis(2000));
  Hello h;
  h.config_hash = config_hash(sys);
  h.seed = 1;
  h.chips = {0};
  ch->send(h, Millis(2000));
  const Message answer = ch->receive(Millis(5000));
  REQUIRE(std::holds_alternative<Hello>(answer));
  return ch;
}

}  // namespace

TEST_CASE("transport: a request larger than a frame can answer is refused before the memory sees it") {
  const ServedSystem sys = ideal(100'000, 64);
  ServerThread st(options(sys), "huge-request");
  auto ch = greeted_channel(st.address, sys);
  RequestMsg q;
  q.time = 1000;
  q.req.id = 1;
  q.req.bytes = 0xffffffffu;  // 4 GiB of read data: once allocated by the memory before any check
  ch->send(q, Millis(2000));
  const Message m = ch->receive(Millis(5000));
  REQUIRE(std::holds_alternative<ErrorMsg>(m));
  CHECK_THAT(std::get<ErrorMsg>(m).text, Catch::Contains("REQUEST of 4294967295 bytes (at most 8388608)"));
}

TEST_CASE("transport: a client dropped for its silence is told why, not left to think the server died") {
  const ServedSystem sys = ideal(100'000, 64);
  ServerOptions o = options(sys);
  o.read_timeout = Millis(300);
  ServerThread st(o, "silent-client");
  auto ch = greeted_channel(st.address, sys);
  // Silent past the server's deadline (a stopped process): the next thing it reads is the reason.
  const Message m = ch->receive(Millis(5000));
  REQUIRE(std::holds_alternative<ErrorMsg>(m));
  CHECK_THAT(std::get<ErrorMsg>(m).text, Catch::StartsWith("the server ended this session: "));
  st.join();
}

TEST_CASE("transport: a client whose heartbeat meets the closed connection reports the server's reason") {
  // The server drops the client (as after a SIGSTOP past its deadline), says why and closes.
  // The client's heartbeat thread is first to write: it had kept "closed the connection".
  const ServedSystem sys = ideal(100'000, 64);
  FakeServer fake("dropped", [&](Channel& c) {
    Hello me;
    me.config_hash = config_hash(sys);
    me.seed = 1;
    me.chips = {0};
    answer_hello(c, me);
    c.send(ErrorMsg{"the server ended this session: no message from this client within 2 s"}, Millis(2000));
    throw std::runtime_error("closed");  // the fake closes the connection at once
  });
  ClientOptions c = client(fake.address(), sys);
  c.heartbeat = Millis(10);
  auto session = ClientSession::connect(c);
  std::this_thread::sleep_for(Millis(300));  // heartbeats, every 10 ms, meet the closed connection
  MemRequest req;
  req.bytes = 64;
  CHECK_THROWS_WITH(session->post_request(0, req, 0),
                    "the server ended this session: no message from this client within 2 s");
}

TEST_CASE("transport: part of a HELLO at the deadline is a failed session that names the peer") {
  ServerOptions o = options(ideal(100'000, 64));
  o.hello_timeout = Millis(300);
  std::ostringstream log;
  o.log = &log;
  ServerThread st(o, "part-hello");
  auto ch = Channel::connect(parse_address(st.address), Millis(2000));
  const std::vector<std::uint8_t> hello = encode(Hello{});
  ch->send_raw(std::span(hello).first(hello.size() / 2), Millis(2000));
  const Message said = ch->receive(Millis(5000));
  REQUIRE(std::holds_alternative<ErrorMsg>(said));
  CHECK_THAT(std::get<ErrorMsg>(said).text, Catch::Contains("no HELLO within 0.3 s of connecting"));
  st.join();
  CHECK_THAT(log.str(), Catch::Contains("session 1: connection from unix client (pid " + std::to_string(::getpid()) +
                                        ") failed: no HELLO within 0.3 s of connecting (mxcosim serve "
                                        "--hello-timeout) after 0 messages"));
}

TEST_CASE("transport: garbage, death or silence of the server fails the client with a clear error") {
  const ServedSystem sys = ideal(100'000, 64);
  SECTION("garbage instead of a HELLO") {
    FakeServer fake("garbage-out", [](Channel& c) {
      c.send_raw(std::vector<std::uint8_t>{6, 0, 0, 0, 77, 1, 2, 3, 4, 5}, Millis(2000));
    });
    CHECK_THROWS_WITH(ClientSession::connect(client(fake.address(), sys)),
                      Catch::Contains("garbage from unix:") && Catch::Contains("unknown message type 77"));
  }
  SECTION("a lookahead server that breaks its contract") {
    // A fake server: grants a 50 ns contract, then answers the first request with a wrong
    // completion, or with more completions (in one write) than requests in flight.
    const bool flood = GENERATE(false, true);
    FakeServer fake(flood ? "contract-flood" : "contract", [flood](Channel& c) {
      Hello me;
      me.chips = {0};
      me.mem_latency_ps = 50'000;
      me.mem_capacity = 2;
      answer_hello(c, me);
      c.receive(Millis(5000));  // the first REQUEST
      MemResponse r;
      r.id = flood ? 1 : 99;  // 99: not the request's id
      r.complete = 50'000;
      for (int i = 0; i < (flood ? 3 : 1); ++i) c.queue(ResponseMsg{0, r});
      c.flush(Millis(2000));
    });
    {
      auto s = ClientSession::connect(client(fake.address(), sys));
      auto remote = ClientSession::make_memory(s, 0, "remote");
      CHECK(remote->send(MemRequest::make_read(1, 0, 4), 0));
      if (flood)
        CHECK_THROWS_WITH(remote->advance_to(remote->next_event_time()),
                          Catch::Contains("pushed more completions for chip 0 than requests in flight"));
      else
        CHECK_THROWS_WITH(remote->advance_to(remote->next_event_time()),
                          Catch::Contains("breaks the fixed-latency contract") && Catch::Contains("expected request 1"));
    }
  }
  SECTION("the server dies mid-run") {
    ServerOptions o = options(sys);
    o.drop_after = 4;  // HELLO, the initial SYNC, then two exchanges
    ServerThread st(o, "drop");
    ClientOptions c = client(st.address, sys);
    c.lookahead = false;
    auto s = ClientSession::connect(c);
    auto remote = ClientSession::make_memory(s, 0, "remote");
    CHECK(remote->can_accept(MemRequest::make_read(1, 0, 4)));
    CHECK_THROWS_WITH(remote->send(MemRequest::make_read(1, 0, 4), 0),
                      Catch::Contains("closed the connection") && Catch::Contains(st.address));
    // Every later call fails at once with the same reason.
    CHECK_THROWS_WITH(remote->advance_to(10), Catch::Contains("closed the connection"));
  }
  SECTION("the server dies while requests are posted (lookahead)") {
    ServerOptions o = options(sys);
    o.drop_after = 2;  // HELLO, then the first request
    ServerThread st(o, "drop-la");
    auto s = ClientSession::connect(client(st.address, sys));
    auto remote = ClientSession::make_memory(s, 0, "remote");
    REQUIRE(s->contract().capacity > 0);
    const auto run = [&] {
      for (std::uint64_t i = 0; i < 3; ++i) remote->send(MemRequest::make_read(i, 0, 4), i);
      remote->advance_to(remote->next_event_time());
    };
    CHECK_THROWS_WITH(run(), Catch::Contains("closed the connection") && Catch::Contains(st.address));
    CHECK_THROWS_WITH(remote->advance_to(kNever - 1), Catch::Contains("closed the connection"));
  }
  SECTION("the server stalls while requests are posted (lookahead)") {
    ServerOptions o = options(sys);
    o.stall_after = 2;
    ServerThread st(o, "stall-la");
    ClientOptions c = client(st.address, sys);
    c.reply_timeout = Millis(300);
    auto s = ClientSession::connect(c);
    auto remote = ClientSession::make_memory(s, 0, "remote");
    CHECK(remote->send(MemRequest::make_read(1, 0, 4), 0));
    CHECK_THROWS_WITH(remote->advance_to(remote->next_event_time()),
                      Catch::Contains("no message from") && Catch::Contains("within 0.3 s (peer stalled or dead)"));
  }
  SECTION("the server stalls") {
    ServerOptions o = options(sys);
    o.stall_after = 3;
    ServerThread st(o, "stall");
    ClientOptions c = client(st.address, sys);
    c.lookahead = false;
    c.reply_timeout = Millis(300);
    auto s = ClientSession::connect(c);
    auto remote = ClientSession::make_memory(s, 0, "remote");
    CHECK_THROWS_WITH(remote->can_accept(MemRequest::make_read(1, 0, 4)),
                      Catch::Contains("no message from") && Catch::Contains("within 0.3 s (peer stalled or dead)"));
  }
}

TEST_CASE("an injection at a fabric event's time finds that event run, locally and through the server") {
  // One message in chip 0's injection queue: a second one offered at the time
  // the first leaves it is taken, whether or not the fabric has run that time.
  ServedSystem sys = ideal(100'000, 64);
  sys.chips = 2;
  sys.ici_config = std::string(MXCOSIM_SOURCE_DIR) + "/configs/ici/ring4_q1.yaml";
  ServerThread server(options(sys), "fabric-tie");
  auto session = ClientSession::connect(client(server.address, sys));
  const std::unique_ptr<Fabric> remote = ClientSession::make_fabric(session);
  const std::unique_ptr<Fabric> local = make_served_fabric(sys);
  IciPacket a;
  a.id = 1;
  a.src = 0;
  a.dst = 1;
  a.bytes = 256;
  IciPacket b = a;
  b.id = 2;
  std::vector<std::pair<std::uint64_t, Time>> got[2];
  for (int i = 0; i < 2; ++i) {
    Fabric& f = i == 0 ? *local : *remote;
    INFO((i == 0 ? "local" : "remote"));
    f.set_delivery([&got, i](const IciPacket& p) { got[i].emplace_back(p.id, p.deliver); });
    REQUIRE(f.inject(a, 0));
    CHECK_FALSE(f.inject(b, 0));  // the queue holds one
    const Time t = f.next_event_time();
    REQUIRE(t > 0);
    REQUIRE(t != kNever);
    // The first event, at t, sends `a` on its way: `b` finds its place free at t.
    CHECK(f.inject(b, t));
    while (f.next_event_time() != kNever) f.advance_to(f.next_event_time());
  }
  REQUIRE(got[0].size() == 2);
  CHECK(got[1] == got[0]);
}
