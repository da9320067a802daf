// The instruction-event bookkeeping both tiles keep (models/mxu/instr_events.h), driven by
// hand: the events it records and the fault it returns for an edge no instruction explains.
#include <catch2/catch.hpp>

#include <sstream>

#include "models/mxu/assembler.h"
#include "models/mxu/instr_events.h"

using namespace mxc;

namespace {
constexpr unsigned kDma = 0, kCompute = 1, kIci = 2, kNoUnit = 3;
}  // namespace

TEST_CASE("instruction events: in order per unit, no unit done at dispatch, nothing to report") {
  InstrEventTracker tr;
  tr.load(3);
  CHECK_FALSE(tr.on_edge(0, true, kIci, 2).has_value());      // #0 to the ICI
  CHECK_FALSE(tr.on_edge(0, true, kNoUnit, 3).has_value());   // #1: no unit, done now
  CHECK_FALSE(tr.on_edge(0b100, true, kDma, 8).has_value());  // #0 done, then #2 to the DMA
  CHECK(tr.pending(kDma).size() == 1);
  CHECK_FALSE(tr.on_edge(0b001, false, 0, 9).has_value());
  const auto& ev = tr.events();
  CHECK((ev[0].start == 2 && ev[0].end == 8 && ev[0].dispatched && ev[0].done));
  CHECK((ev[1].start == 3 && ev[1].end == 3 && ev[1].done));
  CHECK((ev[2].start == 8 && ev[2].end == 9 && ev[2].done));
  CHECK(tr.dispatched() == 3);
  CHECK(tr.completed() == 3);
}

TEST_CASE("instruction events: a done with nothing pending returns its fault, the edge's earlier units kept") {
  InstrEventTracker tr;
  tr.load(2);
  CHECK_FALSE(tr.on_edge(0, true, kDma, 1).has_value());
  // The DMA's #0 completes (unit 0 comes first), then compute, holding nothing, reports done.
  const auto f = tr.on_edge(0b011, true, kCompute, 5);
  REQUIRE(f.has_value());
  CHECK(f->pin == "compute");
  CHECK(f->field == "done with nothing pending");
  CHECK(f->expected == "ev_done[1] low: no instruction pending on compute (1 of 2 completed)");
  CHECK(f->actual == "ev_done[1] high");
  CHECK(tr.events()[0].end == 5);
  CHECK(tr.completed() == 1);
  CHECK(tr.dispatched() == 1);  // the edge's dispatch is not taken
}

TEST_CASE("instruction events: a dispatch past the program returns its fault") {
  InstrEventTracker tr;
  tr.load(1);
  CHECK_FALSE(tr.on_edge(0, true, kNoUnit, 0).has_value());
  const auto f = tr.on_edge(0, true, kDma, 4);
  REQUIRE(f.has_value());
  CHECK(f->pin == "dispatch");
  CHECK(f->field == "dispatch beyond the program");
  CHECK(f->expected == "no dispatch after the program's 1 instructions");
  CHECK(f->actual == "dispatch 2 (ev_unit 0)");
  CHECK(tr.dispatched() == 1);
}

TEST_CASE("instruction events: a hang's progress names each busy unit's oldest and the next to dispatch") {
  std::istringstream text("dma_load rows=4 cols=4 sp_row=0 hbm_addr=0x1000 hbm_stride=32\n"
                          "nop\n"
                          "dma_load rows=4 cols=4 sp_row=4 hbm_addr=0x2000 hbm_stride=32\n"
                          "nop\n");
  const Program program = parse_program(text, "hang.s");
  REQUIRE(program.size() == 4);
  InstrEventTracker tr;
  tr.load(program.size());
  CHECK(tr.progress(program) == "0 dispatched, 0 completed; next to dispatch #0 (" + describe(program[0]) + ")");
  CHECK_FALSE(tr.on_edge(0, true, kDma, 1).has_value());
  CHECK_FALSE(tr.on_edge(0, true, kNoUnit, 2).has_value());
  CHECK_FALSE(tr.on_edge(0, true, kDma, 3).has_value());
  // #1 (no unit) is done at dispatch; #0 and #2 wait on the DMA, #0 the oldest.
  CHECK(tr.progress(program) == "3 dispatched, 1 completed; dma busy with #0 (" + describe(program[0]) +
                                    "); next to dispatch #3 (" + describe(program[3]) + ")");
  CHECK_FALSE(tr.on_edge(0b001, true, kNoUnit, 4).has_value());
  CHECK(tr.progress(program) == "4 dispatched, 3 completed; dma busy with #2 (" + describe(program[2]) + ")");
}
