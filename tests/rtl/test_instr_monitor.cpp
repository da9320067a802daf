// The tile's instruction monitors driven by hand-written event pins, no RTL:
// the events they record, and the record of pins no instruction explains.
#include <catch2/catch.hpp>

#include "bridge/axi4_protocol_error.h"
#include "bridge/rtl_tile.h"

using namespace mxc;

namespace {

constexpr unsigned kDma = 0, kCompute = 1, kNoUnit = 3;

/// The Mismatch the monitor threw at these pins; fails the test if it threw none.
Mismatch thrown(InstrMonitor& mon, unsigned done, bool dispatch, unsigned unit, std::uint64_t cycle, Time now) {
  try {
    mon.on_edge(done, dispatch, unit, cycle, now);
  } catch (const RtlPinError& e) {
    CHECK(e.stopped_at() == "an instruction event no instruction of the program explains");
    return e.mismatch();
  }
  FAIL("no RtlPinError for pins no instruction explains");
  return {};
}

}  // namespace

TEST_CASE("instruction monitor: dispatches in order, each unit completes in order, unit 3 at dispatch") {
  InstrMonitor mon("t");
  mon.load(4);
  mon.on_edge(0, true, kDma, 10, 0);       // #0 to the DMA
  mon.on_edge(0, true, kCompute, 11, 0);   // #1 to compute
  mon.on_edge(0, true, kNoUnit, 12, 0);    // #2: no unit, done now
  mon.on_edge(0b011, true, kDma, 15, 0);   // #0 and #1 done, #3 to the DMA the same edge
  mon.on_edge(0b001, false, 0, 20, 0);     // #3 done
  REQUIRE(mon.events().size() == 4);
  const auto& ev = mon.events();
  CHECK((ev[0].start == 10 && ev[0].end == 15 && ev[0].done));
  CHECK((ev[1].start == 11 && ev[1].end == 15 && ev[1].done));
  CHECK((ev[2].start == 12 && ev[2].end == 12 && ev[2].done));
  CHECK((ev[3].start == 15 && ev[3].end == 20 && ev[3].done));
  CHECK(mon.dispatched() == 4);
  CHECK(mon.completed() == 4);
}

// A done pulse whose unit holds no instruction was a std::logic_error: the run ended as a
// usage error with no record. It is the design's fault, reported as a mismatch of the run.
TEST_CASE("instruction monitor: a unit done with nothing pending is a mismatch naming unit, cycle and counts") {
  InstrMonitor mon("dut.chip0.tile0");
  mon.load(2);
  mon.on_edge(0, true, kDma, 3, 3000);
  mon.on_edge(0b001, false, 0, 7, 7000);  // #0 done: the DMA is empty again
  const Mismatch m = thrown(mon, 0b010, false, 0, 9, 9000);  // compute never got one
  INFO(to_string(m));
  CHECK(m.time == 9000);
  CHECK(m.where == "monitor dut.chip0.tile0.compute");
  CHECK(m.id == "cycle 9");
  CHECK(m.field == "done with nothing pending");
  CHECK(m.expected == "ev_done[1] low: no instruction pending on compute (1 of 2 completed)");
  CHECK(m.actual == "ev_done[1] high");
}

TEST_CASE("instruction monitor: a dispatch past the program's end is a mismatch naming the count") {
  InstrMonitor mon("dut.chip0.tile0");
  mon.load(1);
  mon.on_edge(0, true, kNoUnit, 4, 4000);
  const Mismatch m = thrown(mon, 0, true, kCompute, 6, 6000);
  INFO(to_string(m));
  CHECK(m.time == 6000);
  CHECK(m.where == "monitor dut.chip0.tile0.dispatch");
  CHECK(m.id == "cycle 6");
  CHECK(m.field == "dispatch beyond the program");
  CHECK(m.expected == "no dispatch after the program's 1 instructions");
  CHECK(m.actual == "dispatch 2 (ev_unit 1)");
}

TEST_CASE("instruction monitor: an empty program explains no dispatch") {
  InstrMonitor mon("t");
  mon.load(0);
  CHECK(thrown(mon, 0, true, kDma, 0, 0).field == "dispatch beyond the program");
}
