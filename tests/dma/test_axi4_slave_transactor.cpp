// The AXI4 slave transactor driven by hand-written master pins, no RTL:
// data and ordering of R and B, and the errors it raises on illegal bursts.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "bridge/axi4_protocol_error.h"
#include "bridge/axi4_slave_transactor.h"
#include "models/core/ideal_memory.h"

using namespace mxc;

namespace {

constexpr Time kPeriod = 1000;

struct Rig {
  IdealMemory mem{"mem", 10 * kPeriod};
  Axi4SlaveTransactor axi;
  Axi4SlaveSignals s;
  std::uint64_t cycle = 0;

  explicit Rig(Axi4SlaveConfig cfg = make_cfg()) : axi(cfg, mem) {}
  static Axi4SlaveConfig make_cfg() {
    Axi4SlaveConfig c;
    c.beat_bytes = 8;
    return c;
  }
  /// One cycle with master pins m; returns the slave pins of that cycle.
  Axi4SlaveSignals tick(const Axi4MasterSignals& m) {
    const Time now = cycle * kPeriod;
    mem.advance_to(now);
    axi.drive(s);
    axi.on_edge(m, s, now);
    ++cycle;
    return s;
  }
};

Axi4MasterSignals ar(std::uint32_t id, std::uint64_t addr, std::uint32_t len) {
  Axi4MasterSignals m;
  m.arvalid = true;
  m.arid = id;
  m.araddr = addr;
  m.arlen = len;
  m.arsize = 3;
  m.arburst = kAxiBurstIncr;
  return m;
}

Axi4MasterSignals aw(std::uint32_t id, std::uint64_t addr, std::uint32_t len) {
  Axi4MasterSignals m;
  m.awvalid = true;
  m.awid = id;
  m.awaddr = addr;
  m.awlen = len;
  m.awsize = 3;
  m.awburst = kAxiBurstIncr;
  return m;
}

Axi4MasterSignals w(std::uint8_t fill, bool last, std::vector<bool> strb = std::vector<bool>(8, true)) {
  Axi4MasterSignals m;
  m.wvalid = true;
  m.wdata.assign(8, fill);
  m.wstrb = std::move(strb);
  m.wlast = last;
  return m;
}

/// The refusal a cycle with master pins m raised; fails the test if there was none.
Axi4ProtocolError refusal(Rig& rig, const Axi4MasterSignals& m) {
  try {
    rig.tick(m);
  } catch (const Axi4ProtocolError& e) {
    return e;
  }
  FAIL("no Axi4ProtocolError");
  return Axi4ProtocolError("", {});
}

}  // namespace

TEST_CASE("axi4 slave: a read burst returns memory's bytes in order, rlast on the last beat") {
  Rig rig;
  std::vector<std::uint8_t> img(32);
  for (int i = 0; i < 32; ++i) img[i] = static_cast<std::uint8_t>(i + 1);
  rig.mem.backdoor_write(0x100, img);
  REQUIRE(rig.tick(ar(3, 0x100, 3)).arready);
  Axi4MasterSignals idle;
  idle.rready = true;
  std::vector<std::uint8_t> got;
  int lasts = 0;
  for (int c = 0; c < 40; ++c) {
    const auto s = rig.tick(idle);
    if (s.rvalid) {
      CHECK(s.rid == 3);
      got.insert(got.end(), s.rdata.begin(), s.rdata.end());
      lasts += s.rlast;
      if (s.rlast) CHECK(got.size() == 32);
    }
  }
  CHECK(got == img);
  CHECK(lasts == 1);
  CHECK(rig.axi.idle());
  CHECK(rig.axi.read_beats() == 4);
}

TEST_CASE("axi4 slave: the first R beat is offered at the first edge at or after the memory completes") {
  // AR at edge 0 -> request sent at t=0, completes at 10 ns = edge 10.
  Rig rig;
  rig.tick(ar(0, 0x0, 0));
  Axi4MasterSignals idle;
  idle.rready = true;
  for (int c = 1; c < 10; ++c) CHECK_FALSE(rig.tick(idle).rvalid);
  CHECK(rig.tick(idle).rvalid);
}

TEST_CASE("axi4 slave: R data stays offered unchanged while RREADY is low") {
  Rig rig;
  rig.mem.backdoor_write(0x40, std::vector<std::uint8_t>(8, 0x5a));
  rig.tick(ar(1, 0x40, 0));
  Axi4MasterSignals hold;  // rready low
  Axi4SlaveSignals first;
  for (int c = 0; c < 30; ++c) {
    const auto s = rig.tick(hold);
    if (s.rvalid && !first.rvalid) first = s;
    if (first.rvalid) {
      CHECK(s.rvalid);
      CHECK(s.rid == first.rid);
      CHECK(s.rdata == first.rdata);
    }
  }
  REQUIRE(first.rvalid);
  CHECK_FALSE(rig.axi.idle());
}

TEST_CASE("axi4 slave: same-ID reads return in order and different IDs interleave under a seeded choice") {
  auto run = [](std::uint64_t seed) {
    Axi4SlaveConfig cfg = Rig::make_cfg();
    cfg.seed = seed;
    Rig rig(cfg);
    for (std::uint64_t a = 0; a < 256; ++a) {
      const std::uint8_t v = static_cast<std::uint8_t>(a / 32);  // burst index in every byte
      rig.mem.backdoor_write(a, std::span(&v, 1));
    }
    // Bursts 0..7 of 4 beats, IDs 0,1,0,1,...: even bursts on ID 0.
    for (std::uint32_t b = 0; b < 8; ++b) rig.tick(ar(b % 2, b * 32, 3));
    Axi4MasterSignals idle;
    idle.rready = true;
    std::vector<std::pair<std::uint32_t, std::uint8_t>> beats;
    for (int c = 0; c < 100; ++c) {
      const auto s = rig.tick(idle);
      if (s.rvalid) beats.emplace_back(s.rid, s.rdata[0]);
    }
    REQUIRE(beats.size() == 32);
    std::vector<std::uint8_t> id0, id1;
    for (auto [id, v] : beats) (id ? id1 : id0).push_back(v);
    CHECK(id0 == std::vector<std::uint8_t>{0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6});
    CHECK(id1 == std::vector<std::uint8_t>{1, 1, 1, 1, 3, 3, 3, 3, 5, 5, 5, 5, 7, 7, 7, 7});
    CHECK(rig.axi.read_interleavings() > 0);
    return beats;
  };
  CHECK(run(11) == run(11));  // reproducible
  CHECK(run(11) != run(12));  // and the seed matters
}

TEST_CASE("axi4 slave: without interleaving the oldest ready burst goes first, whatever its ID, and an ID used again is served") {
  Axi4SlaveConfig cfg = Rig::make_cfg();
  cfg.random_interleave = false;
  Rig rig(cfg);
  // Accepted in the order ID 5, 2, 9: the memory completes them in that
  // order, so the R beats must come in acceptance order, not ID order.
  rig.tick(ar(5, 0, 1));
  rig.tick(ar(2, 32, 1));
  rig.tick(ar(9, 64, 1));
  Axi4MasterSignals idle;
  idle.rready = true;
  std::vector<std::uint32_t> ids;
  const auto collect = [&](int cycles) {
    for (int c = 0; c < cycles; ++c)
      if (const auto s = rig.tick(idle); s.rvalid) ids.push_back(s.rid);
  };
  collect(30);
  CHECK(ids == std::vector<std::uint32_t>{5, 5, 2, 2, 9, 9});
  CHECK(rig.axi.idle());
  rig.tick(ar(5, 96, 1));  // ID 5 again, after its first burst finished
  collect(30);
  CHECK(ids == std::vector<std::uint32_t>{5, 5, 2, 2, 9, 9, 5, 5});
  CHECK(rig.axi.read_interleavings() == 0);
}

TEST_CASE("axi4 slave: a write burst with strobes lands masked and B follows memory completion") {
  Rig rig;
  rig.mem.backdoor_write(0x200, std::vector<std::uint8_t>(16, 0xcc));
  REQUIRE(rig.tick(aw(2, 0x200, 1)).awready);
  rig.tick(w(0x11, false));
  rig.tick(w(0x22, true, {true, true, false, false, true, false, false, false}));
  Axi4MasterSignals idle;
  idle.bready = true;
  int bs = 0;
  for (int c = 0; c < 30; ++c) {
    const auto s = rig.tick(idle);
    if (s.bvalid) {
      CHECK(s.bid == 2);
      CHECK(rig.cycle - 1 >= 12);  // W last at edge 2, memory latency 10 edges
      ++bs;
    }
  }
  CHECK(bs == 1);
  std::vector<std::uint8_t> got(16);
  rig.mem.backdoor_read(0x200, got);
  CHECK(got == std::vector<std::uint8_t>{0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0xcc, 0xcc,
                                         0x22, 0xcc, 0xcc, 0xcc});
  CHECK(rig.axi.bytes_written() == 11);
}

TEST_CASE("axi4 slave: W beats ahead of their AW are held and matched in AW order") {
  Rig rig;
  rig.tick(w(0x31, true));
  rig.tick(w(0x32, true));
  // Held, and counted for a hang's report until their AWs come.
  CHECK_FALSE(rig.axi.idle());
  CHECK(rig.axi.early_w_beats() == 2);
  CHECK(rig.axi.live_bursts() == 0);
  rig.tick(aw(0, 0x300, 0));
  rig.tick(aw(1, 0x308, 0));
  Axi4MasterSignals idle;
  idle.bready = true;
  for (int c = 0; c < 30; ++c) rig.tick(idle);
  std::vector<std::uint8_t> got(16);
  rig.mem.backdoor_read(0x300, got);
  CHECK(got == std::vector<std::uint8_t>{0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x31, 0x32, 0x32, 0x32, 0x32, 0x32,
                                         0x32, 0x32, 0x32});
  CHECK(rig.axi.idle());
  CHECK(rig.axi.early_w_beats() == 0);
}

TEST_CASE("axi4 slave: illegal bursts are reported precisely") {
  Rig rig;
  CHECK_THROWS_WITH(rig.tick(ar(0, 0xff8, 1)), Catch::Contains("crosses a 4 KiB boundary"));
  CHECK_THROWS_WITH(rig.tick(ar(0, 0x0, 256)), Catch::Contains("AxLEN above 255"));
  auto fixed = ar(0, 0x0, 0);
  fixed.arburst = 0;
  CHECK_THROWS_WITH(rig.tick(fixed), Catch::Contains("burst type 0 unsupported"));
  auto narrow = aw(0, 0x0, 0);
  narrow.awsize = 2;
  CHECK_THROWS_WITH(rig.tick(narrow), Catch::Contains("size 2 unsupported"));
  CHECK_THROWS_WITH(rig.tick(aw(0, 0x4, 0)), Catch::Contains("not aligned"));
  // A 32-bit ID was one queue per possible ID up to it: std::bad_alloc.
  CHECK_THROWS_WITH(rig.tick(ar(0x80000000u, 0x0, 0)),
                    Catch::Contains("ID 0x80000000 wider than the transactor's 16 bits"));
  Rig wide;
  wide.tick(ar(0xffff, 0x0, 0));  // the widest taken
}

// AXI4 allows FIXED and WRAP bursts, beats narrower than the bus and unaligned INCR starts
// (A3.4), and sets no ID width: the slave refuses them, as its limits, not as the master's fault.
TEST_CASE("axi4 slave: legal AXI4 bursts the slave does not serve are refused as unsupported, not as violations") {
  auto fixed = ar(1, 0x40, 0);
  fixed.arburst = 0;
  auto wrap = ar(1, 0x40, 3);
  wrap.arburst = 2;
  auto narrow = aw(2, 0x40, 0);
  narrow.awsize = 2;  // 4-byte beats on the 8-byte bus
  // Two 4-byte beats from 0xff8 end at the page's last byte: within the page, only narrow.
  auto narrow_to_page_end = ar(2, 0xff8, 1);
  narrow_to_page_end.arsize = 2;
  const struct {
    Axi4MasterSignals pins;
    const char* where;
    const char* field;
    const char* actual;
  } cases[] = {
      {fixed, "protocol axi.ar", "burst type", "0"},
      {wrap, "protocol axi.ar", "burst type", "2"},
      {narrow, "protocol axi.aw", "burst size", "size 2"},
      {narrow_to_page_end, "protocol axi.ar", "burst size", "size 2"},
      {ar(3, 0x44, 0), "protocol axi.ar", "address alignment", "0x44"},
      {aw(3, 0x41, 1), "protocol axi.aw", "address alignment", "0x41"},
      {ar(0x10000, 0x0, 0), "protocol axi.ar", "ID width", "0x10000"},
  };
  for (const auto& c : cases) {
    Rig rig;
    const Axi4ProtocolError e = refusal(rig, c.pins);
    INFO(e.what());
    CHECK(e.unsupported());
    CHECK(e.stopped_at() == "an AXI burst legal in AXI4 but unsupported by this slave model");
    CHECK_THAT(std::string(e.what()), Catch::Contains("unsupported by this slave model (legal AXI4)"));
    CHECK(e.mismatch().where == c.where);
    CHECK(e.mismatch().field == c.field);
    CHECK(e.mismatch().actual == c.actual);
    CHECK_THAT(e.mismatch().expected, Catch::Contains("this slave model's limit"));
  }
}

TEST_CASE("axi4 slave: bursts AXI4 forbids are protocol violations") {
  auto reserved = ar(0, 0x0, 0);
  reserved.arburst = 3;
  auto wide = aw(0, 0x0, 0);
  wide.awsize = 4;  // 16-byte beats on the 8-byte bus
  // A burst that breaks a rule is a violation even when it is also of a kind the slave does
  // not serve: FIXED of 17 beats, WRAP of 3 beats or from an unaligned address, a narrow
  // (4-byte) INCR from 0xffc whose second beat starts the next page, an ID past 16 bits
  // crossing a page.
  auto long_fixed = ar(1, 0x40, 16);
  long_fixed.arburst = 0;
  auto wrap3 = ar(1, 0x40, 2);
  wrap3.arburst = 2;
  auto wrap_unaligned = ar(1, 0x44, 3);
  wrap_unaligned.arburst = 2;
  auto narrow_crossing = ar(1, 0xffc, 1);
  narrow_crossing.arsize = 2;
  const struct {
    Axi4MasterSignals pins;
    const char* field;
  } cases[] = {
      {ar(0, 0xff8, 1), "4 KiB boundary"},
      {ar(0, 0x0, 256), "burst length"},
      {reserved, "burst type"},
      {wide, "burst size"},
      {long_fixed, "burst length"},
      {wrap3, "burst length"},
      {wrap_unaligned, "address alignment"},
      {narrow_crossing, "4 KiB boundary"},
      {ar(0x10000, 0xff8, 1), "4 KiB boundary"},
      {ar(0x10000, 0x0, 256), "burst length"},
  };
  for (const auto& c : cases) {
    Rig rig;
    const Axi4ProtocolError e = refusal(rig, c.pins);
    INFO(e.what());
    CHECK_FALSE(e.unsupported());
    CHECK(e.stopped_at() == "an AXI protocol violation");
    CHECK_THAT(std::string(e.what()), !Catch::Contains("unsupported"));
    CHECK(e.mismatch().field == c.field);
  }
}

// A W beat not of the bus's width was a plain std::runtime_error: the run ended as a usage
// error without a record. It is the master's pins breaking a rule, recorded like the others.
TEST_CASE("axi4 slave: a W beat of the wrong width is a protocol violation with its record") {
  Rig rig;
  rig.tick(aw(1, 0x80, 1));
  rig.tick(w(1, false));
  Axi4MasterSignals narrow = w(2, true, std::vector<bool>(4, true));
  narrow.wdata.resize(4);
  const Axi4ProtocolError e = refusal(rig, narrow);
  INFO(e.what());
  CHECK_FALSE(e.unsupported());
  const Mismatch& m = e.mismatch();
  CHECK(m.time == 2 * kPeriod);
  CHECK(m.where == "protocol axi.w");
  CHECK(m.id == "W beat 2");
  CHECK(m.field == "W beat size");
  CHECK(m.expected == "8 data bytes and strobes");
  CHECK(m.actual == "4 data bytes, 4 strobes");
}

TEST_CASE("axi4 slave: WLAST early or missing is an error naming the beat") {
  Rig early;
  early.tick(aw(4, 0x0, 2));
  early.tick(w(1, false));
  CHECK_THROWS_WITH(early.tick(w(2, true)), Catch::Contains("beat 2 of AW id 4") && Catch::Contains("before the last"));
  Rig missing;
  missing.tick(aw(5, 0x0, 0));
  CHECK_THROWS_WITH(missing.tick(w(1, false)), Catch::Contains("missing on the last beat"));
}

TEST_CASE("axi4 slave: backpressure probabilities of 1 or more are rejected") {
  IdealMemory mem("m", 1000);
  Axi4SlaveConfig cfg;
  cfg.backpressure.wready_low = 1.0;
  CHECK_THROWS_AS(Axi4SlaveTransactor(cfg, mem), std::invalid_argument);
}
