// Fuzzing a server's sessions: clients that complete the handshake, then
// send well-formed messages in any order with any values (requests to chips
// that do not exist, times that go back or jump to the end of time, sizes
// from zero to huge, data that does not match its size, messages only a
// server sends, a second HELLO). Whatever they send, each session must end
// within its deadline, refused with a reason or closed by BYE, never by a
// crash (run under -DMXCOSIM_SANITIZE=ON for memory errors) or a hang; and
// the server must go on serving a well-behaved client exactly afterwards.
#include <catch2/catch.hpp>

#include <chrono>
#include <random>

#include "bridge/transport/client_session.h"
#include "bridge/transport/served_models.h"
#include "memory_drive.h"
#include "server_fixture.h"

using namespace mxc;
using namespace mxc::transport;
using mxc::transport::testing::drive;
using mxc::transport::testing::Log;
using mxc::transport::testing::ServerThread;

namespace {

const std::string kConfigs = std::string(MXCOSIM_SOURCE_DIR) + "/configs";

// Messages a client might send: valid ones mostly (times that never go
// back, chips of the system, sizes that match their data), so that a
// session goes deep into the models' states, with now and then a field
// that is anything at all, or a message of a kind a client must not send.
class Fuzzer {
 public:
  Fuzzer(std::uint64_t seed, std::uint32_t chips) : m_rng(seed), m_chips(chips) {}

  std::uint64_t below(std::uint64_t n) { return m_rng() % n; }
  bool one_in(std::uint64_t n) { return below(n) == 0; }
  bool wild() { return one_in(150); }

  /// Forward in small steps; wild: back, or to the far future.
  Time time() {
    if (wild()) return one_in(2) ? below(m_now + 1) : kNever - 1 - below(std::uint64_t{1} << (40 + below(22)));
    m_now += below(20'000);
    return m_now;
  }
  /// A chip of the system; wild: one past it, or anything.
  std::uint32_t chip() {
    if (wild()) return one_in(2) ? m_chips : static_cast<std::uint32_t>(m_rng());
    return static_cast<std::uint32_t>(below(m_chips));
  }
  /// 1 to 256 bytes; wild: none, or up to 16 MiB.
  std::uint32_t size() {
    if (wild()) return one_in(2) ? 0 : static_cast<std::uint32_t>(below(std::uint64_t{1} << 24));
    return 1 + static_cast<std::uint32_t>(below(256));
  }
  std::uint64_t addr() { return wild() ? m_rng() : below(1 << 20); }
  /// `n` bytes of data; wild: another count.
  std::vector<std::uint8_t> bytes(std::uint32_t n) {
    std::vector<std::uint8_t> v(wild() ? below(600) : std::min<std::uint32_t>(n, 1 << 16));
    for (auto& b : v) b = static_cast<std::uint8_t>(m_rng());
    return v;
  }

  Message message() {
    if (wild()) return unexpected();
    const std::uint64_t kind = below(m_chips > 1 ? 10 : 8);
    if (kind < 5) {
      RequestMsg q;
      q.chip = chip();
      q.time = time();
      q.probe = one_in(4);
      q.req.id = m_id++;
      q.req.addr = addr();
      q.req.bytes = size();
      q.req.write = one_in(2);
      if (q.req.write) q.req.data = bytes(q.req.bytes);
      if (one_in(8)) q.req.byte_enable.assign(wild() ? below(300) : q.req.data.size(), one_in(2));
      q.req.issue = q.time;
      return q;
    }
    if (kind < 7) return SyncMsg{m_chips > 1 && one_in(3) ? kFabricTarget : chip(), time()};
    if (kind < 8) {
      BackdoorMsg b{chip(), addr(), one_in(2), size(), {}};
      if (b.write) b.data = bytes(b.bytes);
      return b;
    }
    PacketMsg p;
    p.time = time();
    p.probe = one_in(3);
    p.pkt.id = m_id++;
    p.pkt.src = chip();
    p.pkt.dst = chip();
    p.pkt.vc = static_cast<std::uint8_t>(wild() ? below(256) : 0);
    p.pkt.bytes = size();
    p.pkt.addr = addr();
    p.pkt.last = one_in(2);
    p.pkt.payload = bytes(p.pkt.bytes);
    return p;
  }

 private:
  /// A message a client does not send here (or a heartbeat, which it may).
  Message unexpected() {
    switch (below(8)) {
      case 0: return WindowMsg{time(), time(), one_in(2), time(), static_cast<std::uint32_t>(below(8))};
      case 1: {
        const auto n = static_cast<std::uint32_t>(below(3));
        return ReportMsg{std::vector<std::string>(n, "part"), n};  // well formed: `total` counts its parts
      }
      case 2: return HeartbeatMsg{};
      case 3: return ResponseMsg{chip(), MemResponse{}};
      case 4: return AckMsg{one_in(2), time()};
      case 5: return ErrorMsg{"fuzz"};
      case 6: return ByeMsg{};
      default: {
        Hello h;
        h.chips = {chip()};
        return h;
      }
    }
  }

  std::mt19937_64 m_rng;
  std::uint32_t m_chips;
  Time m_now = 0;
  std::uint64_t m_id = 1;
};

/// One fuzzing client: a correct handshake, then `count` random messages,
/// then BYE. True when the session ended within its deadline with a reason
/// from the server (ERROR) or its BYE, or closed without a word only after
/// this client sent ERROR itself.
bool fuzz_session(const std::string& address, const ServedSystem& sys, std::uint64_t seed, int count) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  const auto left = [&] {
    return std::max(Millis(1), std::chrono::duration_cast<Millis>(deadline - Clock::now()));
  };
  const auto ends = [](const Message& m) {
    return std::holds_alternative<ErrorMsg>(m) || std::holds_alternative<ByeMsg>(m);
  };
  Fuzzer f(seed, sys.chips);
  auto ch = Channel::connect(parse_address(address), Millis(5000));
  Hello h;
  h.config_hash = config_hash(sys);
  h.seed = 1;
  for (std::uint32_t c = 0; c < sys.chips; ++c) h.chips.push_back(c);
  h.flags = f.one_in(3) ? kHelloLookahead : 0;
  bool said_error = false;
  try {
    ch->send(h, left());
    if (!std::holds_alternative<Hello>(ch->receive(left()))) return true;  // refused with a reason
    for (int i = 0; i < count; ++i) {
      const Message m = f.message();
      said_error |= std::holds_alternative<ErrorMsg>(m);
      ch->send(m, left());
      while (auto r = ch->try_receive())
        if (ends(*r)) return true;
    }
    ch->send(ByeMsg{}, left());
    for (;;)
      if (ends(ch->receive(left()))) return true;
  } catch (const TransportTimeout&) {
    return false;  // the server neither answered nor closed: it hung on something we sent
  } catch (const TransportError&) {
    // Closed: the reason the server sent before closing may still be here to read.
    try {
      while (auto r = ch->try_receive())
        if (ends(*r)) return true;
    } catch (const TransportError&) {
    }
    return said_error;
  }
}

ServedSystem two_chips_on_hbm() {
  ServedSystem s;
  s.chips = 2;
  s.tiles_per_chip = 2;
  s.memory = "hbm";
  s.hbm_config = kConfigs + "/hbm/hbm2.yaml";
  s.ici_config = kConfigs + "/ici/ring4.yaml";
  return s;
}

}  // namespace

TEST_CASE("session fuzz: any well-formed messages end a session with a reason or a BYE, and the server serves on") {
  ServedSystem ideal;
  ideal.memory = "ideal";
  for (const ServedSystem& sys : {ideal, two_chips_on_hbm()}) {
    INFO("memory " << sys.memory << ", " << sys.chips << " chip(s)");
    ServerOptions o;
    o.system = sys;
    o.seed = 1;
    o.read_timeout = Millis(5000);
    ServerThread st(o, "session-fuzz-" + sys.memory);
    constexpr int kSessions = 40;
    for (int s = 0; s < kSessions; ++s) {
      INFO("session " << s);
      CHECK(fuzz_session(st.address, sys, 1000 + static_cast<std::uint64_t>(s), 1 + 7 * s));
    }
    // A well-behaved client afterwards is served call for call like the local model.
    const auto local = make_served_memory(sys, 0, "local");
    Log want, got;
    want.attach(*local);
    drive(*local);
    REQUIRE(want.done.size() == 6);
    ClientOptions c;
    c.address = st.address;
    c.system = sys;
    c.seed = 1;
    c.reply_timeout = Millis(5000);
    auto session = ClientSession::connect(c);
    auto remote = ClientSession::make_memory(session, 0, "remote");
    got.attach(*remote);
    drive(*remote);
    CHECK(got.done == want.done);
    session->bye();
    st.join();
    const auto outcomes = st.server.outcomes();
    CHECK(outcomes.size() == kSessions + 1);
    for (const auto& out : outcomes) CHECK((out.ok || !out.error.empty()));
  }
}
