// Fuzzing the frame decoder: random streams and valid frames with random
// mutations (bit flips, truncation, inserted and deleted bytes), fed in random
// pieces. Whatever comes in, the decoder returns messages or throws
// ProtocolError: no other exception, no crash (run under -DMXCOSIM_SANITIZE=ON
// for memory errors), no hang (bounded iterations, and each feed is finite).
// A message it does return must encode and decode again to the same bytes.
#include <catch2/catch.hpp>
#include <random>

#include "bridge/transport/frame.h"

using namespace mxc;
using namespace mxc::transport;

namespace {

std::vector<Message> seeds() {
  Hello h;
  h.chips = {0, 1};
  h.fabric_chips = 4;
  RequestMsg q;
  q.req = MemRequest::make_write(1, 0x40, {1, 2, 3, 4});
  q.req.byte_enable = {true, false, true, true};
  ResponseMsg r;
  r.resp.data = {9, 9};
  PacketMsg p;
  p.pkt.payload = {5, 6, 7};
  return {h, q, r, p, SyncMsg{1, 2}, AckMsg{true, 3}, BackdoorMsg{0, 8, false, 16, {}}, HeartbeatMsg{}, ByeMsg{},
          ErrorMsg{"x"}, WindowMsg{1, 2, true, 3, 4}, ReportMsg{{"ab", "c"}, 2}};
}

// Feeds `bytes` in random pieces; counts messages; any exception but ProtocolError fails the test.
std::size_t drain(const std::vector<std::uint8_t>& bytes, std::mt19937_64& rng, std::size_t& errors) {
  FrameDecoder d;
  std::size_t pos = 0, messages = 0;
  try {
    while (pos < bytes.size()) {
      const std::size_t n = std::min<std::size_t>(bytes.size() - pos, 1 + rng() % 64);
      d.feed(std::span<const std::uint8_t>(bytes.data() + pos, n));
      pos += n;
      while (auto m = d.next()) {
        ++messages;
        const auto again = encode(*m);
        FrameDecoder d2;
        d2.feed(again);
        const auto m2 = d2.next();
        REQUIRE(m2.has_value());
        REQUIRE(encode(*m2) == again);
      }
    }
    d.finish();
  } catch (const ProtocolError&) {
    ++errors;
  }
  return messages;
}

}  // namespace

TEST_CASE("frame fuzz: random byte streams only ever give messages or ProtocolError") {
  std::mt19937_64 rng(20240611);
  std::size_t errors = 0, messages = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::uint8_t> bytes(rng() % 96);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    // Often make the length plausible so the body parsers are reached too.
    if (bytes.size() > 5 && rng() % 2) {
      bytes[0] = static_cast<std::uint8_t>(bytes.size() - 4);
      bytes[1] = bytes[2] = bytes[3] = 0;
      bytes[4] = static_cast<std::uint8_t>(1 + rng() % 10);
    }
    messages += drain(bytes, rng, errors);
  }
  CHECK(errors > 10000);  // almost every random stream is garbage
  INFO("messages decoded from random bytes: " << messages);
}

TEST_CASE("frame fuzz: mutated valid frames only ever give messages or ProtocolError") {
  std::mt19937_64 rng(7);
  const auto base = seeds();
  std::size_t errors = 0, messages = 0;
  for (int i = 0; i < 30000; ++i) {
    std::vector<std::uint8_t> bytes;
    for (int k = 0; k < 3; ++k) {
      const auto f = encode(base[rng() % base.size()]);
      bytes.insert(bytes.end(), f.begin(), f.end());
    }
    const int mutations = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < mutations && !bytes.empty(); ++k) {
      const std::size_t at = rng() % bytes.size();
      switch (rng() % 4) {
        case 0: bytes[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
        case 1: bytes.resize(at); break;
        case 2: bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(rng())); break;
        default: bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(at)); break;
      }
    }
    messages += drain(bytes, rng, errors);
  }
  CHECK(errors > 0);
  CHECK(messages > 0);  // mutations after the first frame leave it whole
}
