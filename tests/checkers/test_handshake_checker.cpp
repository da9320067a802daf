// The valid/ready rules on hand-written cycle sequences.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "bridge/handshake_checker.h"

using namespace mxc;

namespace {

using Bytes = std::vector<std::uint8_t>;

struct Cycle {
  bool valid, ready;
  Bytes payload;
};

/// Feeds one channel cycle by cycle from cycle 0, 1000 ps apart.
void run(HandshakeChecker& c, std::size_t ch, const std::vector<Cycle>& cycles) {
  for (std::size_t i = 0; i < cycles.size(); ++i)
    c.observe(ch, cycles[i].valid, cycles[i].ready, cycles[i].payload, i, 1000 * i);
}

}  // namespace

TEST_CASE("stall held stable until the handshake passes and is counted", "[handshake]") {
  HandshakeChecker c;
  const auto ar = c.add_channel("ar");
  run(c, ar, {{false, false, {0xaa, 0}}, {true, false, {1, 2}}, {true, false, {1, 2}}, {true, true, {1, 2}},
              {true, true, {3, 4}}, {false, true, {9, 9}}});
  CHECK(c.passed());
  CHECK(c.handshakes(ar) == 2);
  CHECK(c.stall_cycles(ar) == 2);
  CHECK(c.channel_name(ar) == "ar");
}

TEST_CASE("payload may change freely while valid is low or after a handshake", "[handshake]") {
  HandshakeChecker c;
  const auto w = c.add_channel("w");
  // Back-to-back handshakes with new data each cycle, and idle cycles with garbage.
  run(c, w, {{true, true, {1}}, {true, true, {2}}, {false, false, {7}}, {false, true, {8}}, {true, false, {5}},
             {true, true, {5}}, {true, false, {6}}, {true, true, {6}}});
  CHECK(c.passed());
  CHECK(c.handshakes(w) == 4);
  CHECK(c.stall_cycles(w) == 2);
}

TEST_CASE("payload changed while stalled names the cycle and the first differing byte", "[handshake]") {
  HandshakeChecker c;
  c.add_channel("cmd");
  const auto aw = c.add_channel("aw");
  // Byte 0 = bits 7:0: {0x10, 0x20, 0x30} prints as 0x302010.
  run(c, aw, {{true, false, {0x10, 0x20, 0x30}}, {true, false, {0x10, 0x21, 0x30}}, {true, true, {0x10, 0x21, 0x30}}});
  REQUIRE(c.mismatch_count() == 1);
  const Mismatch& m = c.mismatches()[0];
  CHECK(m.where == "handshake aw");
  CHECK(m.id == "cycle 1");
  CHECK(m.field == "payload changed while stalled");
  CHECK(m.expected == "0x302010");
  CHECK(m.actual == "0x302110 (byte 1 differs)");
  CHECK(m.time == 1000);
}

TEST_CASE("a change in the handshake cycle itself is a violation", "[handshake]") {
  HandshakeChecker c;
  const auto r = c.add_channel("r");
  run(c, r, {{true, false, {1, 0}}, {true, true, {1, 1}}});
  REQUIRE(c.mismatch_count() == 1);
  CHECK(c.mismatches()[0].actual == "0x0101 (byte 1 differs)");
  CHECK(c.handshakes(r) == 1);
}

TEST_CASE("one report per change, not one per stalled cycle", "[handshake]") {
  HandshakeChecker c;
  const auto b = c.add_channel("b");
  run(c, b, {{true, false, {1}}, {true, false, {2}}, {true, false, {2}}, {true, false, {2}}, {true, false, {3}}});
  REQUIRE(c.mismatch_count() == 2);
  CHECK(c.mismatches()[0].id == "cycle 1");
  CHECK(c.mismatches()[1].id == "cycle 4");
  CHECK(c.mismatches()[1].expected == "0x02");
}

TEST_CASE("valid withdrawn before the handshake", "[handshake]") {
  HandshakeChecker c;
  const auto ici = c.add_channel("ici_out");
  run(c, ici, {{true, true, {4}}, {true, false, {5}}, {false, false, {5}}, {true, false, {6}}, {true, true, {6}}});
  REQUIRE(c.mismatch_count() == 1);
  const Mismatch& m = c.mismatches()[0];
  CHECK(m.where == "handshake ici_out");
  CHECK(m.id == "cycle 2");
  CHECK(m.field == "valid withdrawn before handshake");
  CHECK(m.expected == "valid=1 0x05");
  CHECK(m.actual == "valid=0");
  CHECK(c.handshakes(ici) == 2);
}

TEST_CASE("a source's valid high in reset is reported once, at its first edge", "[handshake]") {
  HandshakeChecker c;
  const auto ar = c.add_channel("ar");
  const auto w = c.add_channel("w");
  c.observe_reset(ar, false, 0);
  c.observe_reset(w, false, 0);
  CHECK(c.passed());
  c.observe_reset(w, true, 3);
  c.observe_reset(w, true, 4);
  c.observe_reset(ar, false, 4);
  REQUIRE(c.mismatch_count() == 1);
  const Mismatch& m = c.mismatches()[0];
  CHECK(m.where == "handshake w");
  CHECK(m.id == "reset edge 3");
  CHECK(m.field == "valid during reset");
  CHECK(m.expected == "valid=0");
  CHECK(m.actual == "valid=1");
}

TEST_CASE("a payload of another width while stalled is a change", "[handshake]") {
  HandshakeChecker c;
  const auto ch = c.add_channel("x");
  run(c, ch, {{true, false, {1, 2}}, {true, false, {1}}});
  REQUIRE(c.mismatch_count() == 1);
  CHECK(c.mismatches()[0].actual == "0x01 (size 1 bytes, was 2)");
}

TEST_CASE("channels are checked independently", "[handshake]") {
  HandshakeChecker c;
  const auto a = c.add_channel("a");
  const auto b = c.add_channel("b");
  // Interleaved per cycle as the tile would call it: a stalls cleanly, b changes.
  c.observe(a, true, false, Bytes{1}, 0, 0);
  c.observe(b, true, false, Bytes{1}, 0, 0);
  c.observe(a, true, true, Bytes{1}, 1, 10);
  c.observe(b, true, true, Bytes{2}, 1, 10);
  REQUIRE(c.mismatch_count() == 1);
  CHECK(c.mismatches()[0].where == "handshake b");
  CHECK(c.handshakes(a) == 1);
  CHECK(c.handshakes(b) == 1);
  CHECK(c.channels() == 2);
}
