// The frame codec: hand-computed byte layouts, round trips of every message
// type, and the decoder's errors for each kind of garbage.
#include <catch2/catch.hpp>

#include "bridge/transport/frame.h"

using namespace mxc;
using namespace mxc::transport;

namespace {

Message round_trip(const Message& m) {
  FrameDecoder d;
  d.feed(encode(m));
  auto out = d.next();
  REQUIRE(out.has_value());
  CHECK_FALSE(d.next().has_value());
  CHECK(d.pending() == 0);
  return *out;
}

std::vector<std::uint8_t> frame(std::vector<std::uint8_t> body) {
  std::vector<std::uint8_t> f{static_cast<std::uint8_t>(body.size()), 0, 0, 0};
  f.insert(f.end(), body.begin(), body.end());
  return f;
}

}  // namespace

TEST_CASE("frame: a SYNC is 4 length bytes, the type and little-endian fields") {
  const auto bytes = encode(SyncMsg{0x01020304u, 0x1122334455667788ull});
  // length = 1 (type) + 4 (target) + 8 (time) = 13
  const std::vector<std::uint8_t> expected{13, 0, 0, 0, 5, 0x04, 0x03, 0x02, 0x01,
                                           0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
  CHECK(bytes == expected);
  CHECK(encode(HeartbeatMsg{}) == std::vector<std::uint8_t>{1, 0, 0, 0, 8});
}

TEST_CASE("frame: every message type survives a round trip field by field") {
  Hello h;
  h.config_hash = 0xdeadbeefcafef00dull;
  h.seed = 42;
  h.role = Role::kServer;
  h.chips = {0, 3, 7};
  h.fabric_chips = 4;
  h.flags = kHelloLookahead;
  h.mem_latency_ps = 0x0102030405ull;
  h.mem_capacity = 64;
  h.split_terms = "m=16\nsplit=k\n";
  const auto h2 = std::get<Hello>(round_trip(h));
  CHECK(h2.split_terms == h.split_terms);
  CHECK(h2.flags == kHelloLookahead);
  CHECK(h2.mem_latency_ps == h.mem_latency_ps);
  CHECK(h2.mem_capacity == 64);
  CHECK(h2.magic == kHelloMagic);
  CHECK(h2.version == kProtocolVersion);
  CHECK(h2.config_hash == h.config_hash);
  CHECK(h2.seed == 42);
  CHECK(h2.role == Role::kServer);
  CHECK(h2.chips == h.chips);
  CHECK(h2.fabric_chips == 4);

  RequestMsg q;
  q.chip = 1;
  q.time = 123456;
  q.probe = true;
  q.req = MemRequest::make_write(9, 0x4000, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  q.req.byte_enable = {true, false, true, true, false, false, false, false, true};
  q.req.source = 3;
  q.req.issue = 777;
  const auto q2 = std::get<RequestMsg>(round_trip(q));
  CHECK(q2.chip == 1);
  CHECK(q2.time == 123456);
  CHECK(q2.probe);
  CHECK(q2.req.id == 9);
  CHECK(q2.req.addr == 0x4000);
  CHECK(q2.req.bytes == 9);
  CHECK(q2.req.write);
  CHECK(q2.req.data == q.req.data);
  CHECK(q2.req.byte_enable == q.req.byte_enable);
  CHECK(q2.req.source == 3);
  CHECK(q2.req.issue == 777);

  ResponseMsg p;
  p.chip = 2;
  p.resp.id = 5;
  p.resp.addr = 64;
  p.resp.bytes = 3;
  p.resp.data = {7, 8, 9};
  p.resp.source = 1;
  p.resp.issue = 10;
  p.resp.accept = 20;
  p.resp.complete = kNever;
  const auto p2 = std::get<ResponseMsg>(round_trip(p));
  CHECK(p2.chip == 2);
  CHECK(p2.resp.data == p.resp.data);
  CHECK(p2.resp.accept == 20);
  CHECK(p2.resp.complete == kNever);
  CHECK_FALSE(p2.resp.write);

  PacketMsg k;
  k.time = 99;
  k.pkt.id = 11;
  k.pkt.src = 1;
  k.pkt.dst = 3;
  k.pkt.vc = 2;
  k.pkt.bytes = 4;
  k.pkt.addr = 0xabcdef;
  k.pkt.last = true;
  k.pkt.payload = {1, 2, 3, 4};
  k.pkt.inject = 5;
  k.pkt.deliver = 6;
  const auto k2 = std::get<PacketMsg>(round_trip(k));
  CHECK(k2.time == 99);
  CHECK_FALSE(k2.probe);
  CHECK(k2.pkt.dst == 3);
  CHECK(k2.pkt.vc == 2);
  CHECK(k2.pkt.addr == 0xabcdef);
  CHECK(k2.pkt.last);
  CHECK(k2.pkt.payload == k.pkt.payload);
  CHECK(k2.pkt.deliver == 6);

  const auto a = std::get<AckMsg>(round_trip(AckMsg{true, 4242}));
  CHECK(a.accepted);
  CHECK(a.next_event == 4242);
  const auto b = std::get<BackdoorMsg>(round_trip(BackdoorMsg{1, 0x100, true, 2, {0xaa, 0xbb}}));
  CHECK(b.write);
  CHECK(b.data == std::vector<std::uint8_t>{0xaa, 0xbb});
  CHECK(std::holds_alternative<ByeMsg>(round_trip(ByeMsg{})));
  CHECK(std::get<ErrorMsg>(round_trip(ErrorMsg{"config hash differs"})).text == "config hash differs");

  const auto w = std::get<WindowMsg>(round_trip(WindowMsg{500, kNever, true, 480, 7}));
  CHECK(w.time == 500);
  CHECK(w.next == kNever);
  CHECK(w.done);
  CHECK(w.end_time == 480);
  CHECK(w.end_component == 7);
  const auto rep = std::get<ReportMsg>(round_trip(ReportMsg{{"{\"chips\":[]}", ""}, 3}));
  CHECK(rep.parts == std::vector<std::string>{"{\"chips\":[]}", ""});
  CHECK(rep.total == 3);
  const auto fin = std::get<FinishMsg>(round_trip(FinishMsg{1, 900, 12, true, {"pc 3 cycle 120: tRCD"}, "boom"}));
  CHECK(fin.chip == 1);
  CHECK(fin.time == 900);
  CHECK(fin.beyond_capacity == 12);
  CHECK(fin.timing_checked);
  CHECK(fin.violations == std::vector<std::string>{"pc 3 cycle 120: tRCD"});
  CHECK(fin.error == "boom");
}

TEST_CASE("frame: a HELLO of protocol version 4 (no split terms) decodes, to be refused for its version") {
  Hello h;
  h.version = 4;
  h.seed = 3;
  const auto bytes = encode(h);
  // Version 4 ended after the memory capacity: without the empty terms' u32 count.
  const std::vector<std::uint8_t> body(bytes.begin() + kLengthBytes, bytes.end() - 4);
  const auto old = std::get<Hello>(decode_body(body));
  CHECK(old.version == 4);
  CHECK(old.seed == 3);
  CHECK(old.split_terms.empty());
}

TEST_CASE("frame: WINDOW layout, byte by byte") {
  const auto bytes = encode(WindowMsg{0x0102, 0x0304, true, 0x05, 0x06});
  // length 1 + 8 + 8 + 1 + 8 + 4 = 30, type 11
  const std::vector<std::uint8_t> want{30, 0, 0, 0, 11, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 0x04, 0x03, 0, 0, 0, 0, 0, 0, 1,
                                       0x05, 0, 0, 0, 0, 0, 0, 0, 0x06, 0, 0, 0};
  CHECK(bytes == want);
}

TEST_CASE("frame: the decoder takes frames split anywhere and several in one read") {
  std::vector<std::uint8_t> stream;
  for (std::uint32_t i = 0; i < 3; ++i) {
    const auto f = encode(SyncMsg{i, 1000 * i});
    stream.insert(stream.end(), f.begin(), f.end());
  }
  FrameDecoder d;
  std::vector<std::uint32_t> targets;
  for (std::uint8_t byte : stream) {
    d.feed(std::span<const std::uint8_t>(&byte, 1));
    while (auto m = d.next()) targets.push_back(std::get<SyncMsg>(*m).target);
  }
  CHECK(targets == std::vector<std::uint32_t>{0, 1, 2});
  CHECK_NOTHROW(d.finish());
}

TEST_CASE("frame: garbage gives a clear error, never a message") {
  FrameDecoder zero;
  zero.feed(std::vector<std::uint8_t>{0, 0, 0, 0, 5});
  CHECK_THROWS_WITH(zero.next(), Catch::Contains("bad frame length 0"));

  FrameDecoder huge;
  huge.feed(std::vector<std::uint8_t>{0xff, 0xff, 0xff, 0x7f, 5});
  CHECK_THROWS_WITH(huge.next(), Catch::Contains("bad frame length 2147483647") && Catch::Contains("limit"));

  FrameDecoder unknown;
  unknown.feed(std::vector<std::uint8_t>{100, 0, 0, 0, 42});  // type 42, body not here yet
  CHECK_THROWS_WITH(unknown.next(), Catch::Contains("unknown message type 42"));

  FrameDecoder cut;
  const auto f = encode(SyncMsg{1, 2});
  cut.feed(std::span<const std::uint8_t>(f.data(), f.size() - 3));
  CHECK_FALSE(cut.next().has_value());
  CHECK_THROWS_WITH(cut.finish(), Catch::Contains("truncated frame") && Catch::Contains("10 of 13 bytes"));

  // A SYNC whose length says 5: the type and only 4 of its 12 body bytes.
  CHECK_THROWS_WITH(decode_body(std::vector<std::uint8_t>{5, 1, 2, 3, 4}),
                    Catch::Contains("SYNC frame: truncated"));
  // An ACK with a trailing byte, and with a boolean of 2.
  CHECK_THROWS_WITH(decode_body(std::vector<std::uint8_t>{6, 1, 0, 0, 0, 0, 0, 0, 0, 0, 9}),
                    Catch::Contains("ACK frame: 1 unexpected trailing bytes"));
  CHECK_THROWS_WITH(decode_body(std::vector<std::uint8_t>{6, 2, 0, 0, 0, 0, 0, 0, 0, 0}),
                    Catch::Contains("boolean field holds 2"));
  // A write whose data length claims 4 GiB must fail before allocating it.
  FrameDecoder big;
  big.feed(frame({7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}));
  CHECK_THROWS_WITH(big.next(), Catch::Contains("BACKDOOR frame: truncated"));
  // Not an mxcosim peer at all (e.g. an HTTP client): a HELLO with a bad magic.
  CHECK_THROWS_WITH(decode_body(std::vector<std::uint8_t>{1, 'G', 'E', 'T', ' '}), Catch::Contains("bad magic"));
  // A HELLO flag this version does not know.
  Hello h;
  h.flags = 0x80;
  auto bytes = encode(h);
  CHECK_THROWS_WITH(decode_body(std::span<const std::uint8_t>(bytes).subspan(kLengthBytes)),
                    Catch::Contains("unknown flags 128"));
}
