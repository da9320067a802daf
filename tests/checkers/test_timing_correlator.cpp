// RTL against model timing on hand-made event lists; every expected value is
// computed by hand in the comments.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bridge/timing_correlator.h"

using namespace mxc;

namespace {

Program three_instrs() {
  Program p(3);
  p[0].op = Opcode::DMA_LOAD;
  p[0].rows = 4;
  p[0].cols = 16;
  p[1].op = Opcode::MATMUL;
  p[1].rows = 4;
  p[1].cols = 4;
  p[2].op = Opcode::DMA_STORE;
  p[2].rows = 4;
  p[2].cols = 16;
  return p;
}

std::vector<InstrEvent> events(std::initializer_list<std::pair<std::uint64_t, std::uint64_t>> se) {
  std::vector<InstrEvent> v;
  for (auto [s, e] : se) v.push_back({v.size(), s, e});
  return v;
}

const ClockDomain kClk("tile", 1000, 500);  // edge n at 500 + 1000 n ps

MemoryLogEntry entry(std::uint32_t source, bool write, std::uint64_t addr, Time issue) {
  MemoryLogEntry e;
  e.source = source;
  e.write = write;
  e.addr = addr;
  e.issue = issue;
  e.accept = issue;
  e.complete = issue + 5000;
  return e;
}

}  // namespace

TEST_CASE("tolerance: max of absolute cycles and percent of the expected value", "[timing]") {
  CHECK(TimingTolerance{}.within(10, 10));
  CHECK_FALSE(TimingTolerance{}.within(10, 11));
  CHECK_FALSE(TimingTolerance{}.within(10, 9));
  CHECK(TimingTolerance{2, 0}.within(10, 12));
  CHECK(TimingTolerance{2, 0}.within(10, 8));
  CHECK_FALSE(TimingTolerance{2, 0}.within(10, 13));
  // 10% of 50 = 5 > 2 cycles: 55 passes, 56 fails.
  CHECK(TimingTolerance{2, 10.0}.within(50, 55));
  CHECK_FALSE(TimingTolerance{2, 10.0}.within(50, 56));
  // 10% of 10 = 1 < 2 cycles: the absolute bound wins.
  CHECK(TimingTolerance{2, 10.0}.within(10, 12));
}

TEST_CASE("identical timing passes and the summary is exact", "[timing]") {
  TimingCorrelator t;
  const auto ev = events({{1, 20}, {21, 30}, {31, 60}});
  t.compare_instructions(three_instrs(), ev, ev, kClk);
  CHECK(t.passed());
  CHECK_FALSE(t.first_divergence());
  CHECK(t.rtl_cycles() == 61);
  CHECK(t.model_cycles() == 61);
  CHECK(t.relative_error() == 0.0);
  CHECK(t.duration_error_histogram() == std::map<std::int64_t, std::uint64_t>{{0, 3}});
}

TEST_CASE("start and end differences are reported per instruction, expected = model", "[timing]") {
  TimingCorrelator t;
  const auto model = events({{1, 20}, {21, 30}, {31, 60}});
  const auto rtl = events({{1, 20}, {22, 32}, {33, 63}});
  const Program p = three_instrs();
  t.compare_instructions(p, rtl, model, kClk);
  REQUIRE(t.mismatch_count() == 4);
  const Mismatch& m = t.mismatches()[0];
  CHECK(m.where == "timing instruction 1");
  CHECK(m.id == describe(p[1]));
  CHECK(m.field == "start cycle");
  CHECK(m.expected == "21");
  CHECK(m.actual == "22");
  CHECK(m.time == 500 + 22 * 1000);
  CHECK(t.mismatches()[1].field == "end cycle");
  CHECK(t.mismatches()[1].time == 500 + 32 * 1000);
  REQUIRE(t.first_divergence());
  CHECK(t.first_divergence()->time == 22'500);
  // Durations: rtl 19, 10, 30 against model 19, 9, 29 -> errors 0, +1, +1.
  CHECK(t.duration_error_histogram() == std::map<std::int64_t, std::uint64_t>{{0, 1}, {1, 2}});
  CHECK(t.instructions()[2].end_error() == 3);
  CHECK(t.mean_abs_duration_error() == Approx(2.0 / 3.0));
  CHECK(t.rtl_cycles() == 64);
  CHECK(t.model_cycles() == 61);
  CHECK(t.relative_error() == Approx(3.0 / 61.0));
}

TEST_CASE("a tolerance absorbs small differences", "[timing]") {
  TimingCorrelator t(TimingTolerance{3, 0});
  t.compare_instructions(three_instrs(), events({{1, 20}, {22, 32}, {33, 64}}), events({{1, 20}, {21, 30}, {31, 60}}),
                         kClk);
  // Only instruction 2's end (64 vs 60, 4 > 3) fails.
  REQUIRE(t.mismatch_count() == 1);
  CHECK(t.mismatches()[0].where == "timing instruction 2");
  CHECK(t.mismatches()[0].field == "end cycle");
}

TEST_CASE("first divergence is the earliest in time, not the first reported", "[timing]") {
  TimingCorrelator t;
  // Instruction 0 ends late (cycle 50 vs 20); instruction 1 starts early (cycle 10 vs 21).
  t.compare_instructions(three_instrs(), events({{1, 50}, {10, 30}, {31, 60}}), events({{1, 20}, {21, 30}, {31, 60}}),
                         kClk);
  REQUIRE(t.mismatch_count() == 2);
  // Kept earliest first too: instruction 1's start (cycle 10), then instruction 0's end (cycle 50).
  CHECK(t.mismatches()[0].field == "start cycle");
  CHECK(t.mismatches()[1].field == "end cycle");
  REQUIRE(t.first_divergence());
  CHECK(t.first_divergence()->where == "timing instruction 1");
  CHECK(t.first_divergence()->field == "start cycle");
}

TEST_CASE("total cycles: a run that ends one cycle apart fails, within the instruction tolerance", "[timing]") {
  TimingCorrelator exact;
  exact.compare_cycles(14, 14, kClk, "timing tile chip0.tile0");
  CHECK(exact.passed());
  exact.compare_cycles(13, 14, kClk, "timing tile chip0.tile0");  // RTL 13, model 14
  REQUIRE(exact.mismatch_count() == 1);
  const Mismatch& m = exact.mismatches()[0];
  CHECK(m.where == "timing tile chip0.tile0");
  CHECK(m.field == "total cycles");
  CHECK(m.expected == "14");
  CHECK(m.actual == "13");
  CHECK(m.time == 500 + 1000 * 13);  // the earlier end's edge
  TimingCorrelator loose({1, 0});
  loose.compare_cycles(13, 14, kClk, "timing tile chip0.tile0");
  CHECK(loose.passed());
}

TEST_CASE("missing instruction events are a count mismatch", "[timing]") {
  TimingCorrelator t;
  t.compare_instructions(three_instrs(), events({{1, 20}, {21, 30}}), events({{1, 20}, {21, 30}, {31, 60}}), kClk);
  REQUIRE(t.mismatch_count() == 1);
  CHECK(t.mismatches()[0].field == "instructions with timing");
  CHECK(t.mismatches()[0].expected == "3");
  CHECK(t.mismatches()[0].actual == "2");
}

TEST_CASE("memory: per channel count, issue cycle and address", "[timing]") {
  // Issue times are edges: cycle n at 500 + 1000 n ps.
  const MemoryLog model = {entry(0, false, 0x100, 2500), entry(0, true, 0x800, 3500),
                                             entry(0, false, 0x140, 4500), entry(1, false, 0x0, 1500)};
  // Channels in (source, read before write) order, each with its request count on both sides.
  const auto check_channels = [](const TimingCorrelator& t) {
    REQUIRE(t.memory_channels().size() == 3);
    const std::uint32_t source[3] = {0, 0, 1};
    const bool write[3] = {false, true, false};
    const std::uint64_t requests[3] = {2, 1, 1};
    for (int i = 0; i < 3; ++i) {
      const MemoryChannelTiming& c = t.memory_channels()[static_cast<std::size_t>(i)];
      CHECK(c.source == source[i]);
      CHECK(c.write == write[i]);
      CHECK(c.rtl_requests == requests[i]);
      CHECK(c.model_requests == requests[i]);
      CHECK(c.max_abs_issue_error == 0);
    }
  };
  SECTION("identical") {
    TimingCorrelator t;
    t.compare_memory(model, model, kClk);
    CHECK(t.passed());
    check_channels(t);
  }
  SECTION("the same requests per channel, accepted in another order across channels") {
    // Not equal entry by entry, so each channel is compared on its own: still a match.
    const MemoryLog rtl = {entry(1, false, 0x0, 1500), entry(0, false, 0x100, 2500), entry(0, false, 0x140, 4500),
                           entry(0, true, 0x800, 3500)};
    TimingCorrelator t;
    t.compare_memory(rtl, model, kClk);
    CHECK(t.passed());
    check_channels(t);
  }
  SECTION("one late read, one wrong address, one extra write") {
    MemoryLog rtl = model;
    rtl[2].issue = 6500;  // cycle 6 instead of 4
    rtl[3].addr = 0x40;
    rtl.push_back(entry(0, true, 0x840, 7500));
    TimingCorrelator t;
    t.compare_memory(rtl, model, kClk);
    REQUIRE(t.mismatch_count() == 3);
    // Found channel by channel, (source, read before write); kept earliest first.
    const auto& m = t.mismatches();
    CHECK(m[0].where == "timing memory source 1 read");
    CHECK(m[0].field == "address");
    CHECK(m[0].expected == "0x0");
    CHECK(m[0].actual == "0x40");
    CHECK(m[0].time == 1500);
    CHECK(m[1].where == "timing memory source 0 read");
    CHECK(m[1].id == "request 1 (id 0)");
    CHECK(m[1].field == "issue cycle");
    CHECK(m[1].expected == "4");
    CHECK(m[1].actual == "6");
    CHECK(m[1].time == 6500);
    CHECK(m[2].where == "timing memory source 0 write");
    CHECK(m[2].field == "request count");
    CHECK(m[2].expected == "1");
    CHECK(m[2].actual == "2");
    CHECK(m[2].time == 7500);  // the extra write's acceptance
    REQUIRE(t.first_divergence());
    CHECK(t.first_divergence()->field == "address");  // 1500 ps is the earliest
    CHECK(t.memory_channels()[0].max_abs_issue_error == 2);
  }
  SECTION("a burst of another length at the same address and cycle") {
    // An AxLEN off by one moves other data: it passed as a match when only
    // addresses and issue cycles were compared.
    MemoryLog rtl = model;
    rtl[1].bytes += 64;
    TimingCorrelator t;
    t.compare_memory(rtl, model, kClk);
    REQUIRE(t.mismatch_count() == 1);
    CHECK(t.mismatches()[0].where == "timing memory source 0 write");
    CHECK(t.mismatches()[0].id == "request 0 (id 0)");
    CHECK(t.mismatches()[0].field == "bytes");
    CHECK(t.mismatches()[0].expected == std::to_string(model[1].bytes));
    CHECK(t.mismatches()[0].actual == std::to_string(model[1].bytes + 64));
  }
  SECTION("a write whose strobes enable other bytes than the model's") {
    // A 32-byte beat holding a 16-byte row: the model enables the row's bytes only. An RTL that
    // drives every strobe (or one fewer) writes the same address, size and cycle, and other
    // bytes: the padding the data check never reads, or one byte of the row left out.
    std::vector<bool> row(32, false), short_row(32, false);
    std::fill_n(row.begin(), 16, true);
    std::fill_n(short_row.begin(), 15, true);
    MemoryLog m = model;
    m[1].bytes = 32;
    m[1].byte_mask = byte_mask_digest(row);
    MemoryLog rtl = m;
    rtl[1].byte_mask = 0;  // every strobe high
    TimingCorrelator t;
    t.compare_memory(rtl, m, kClk);
    REQUIRE(t.mismatch_count() == 1);
    CHECK(t.mismatches()[0].where == "timing memory source 0 write");
    CHECK(t.mismatches()[0].id == "request 0 (id 0)");
    CHECK(t.mismatches()[0].field == "byte mask");
    CHECK(t.mismatches()[0].expected.rfind("16 of 32 bytes (mask digest 0x", 0) == 0);
    CHECK(t.mismatches()[0].actual == "all 32 bytes");
    CHECK(t.mismatches()[0].time == 3500);
    rtl[1].byte_mask = byte_mask_digest(short_row);
    TimingCorrelator one_short;
    one_short.compare_memory(rtl, m, kClk);
    REQUIRE(one_short.mismatch_count() == 1);
    CHECK(one_short.mismatches()[0].actual.rfind("15 of 32 bytes", 0) == 0);
    // The same mask on both sides matches.
    TimingCorrelator same;
    same.compare_memory(m, m, kClk);
    CHECK(same.passed());
  }
  SECTION("an issue tolerance of two cycles") {
    MemoryLog rtl = model;
    rtl[2].issue = 6500;
    TimingCorrelator t({}, TimingTolerance{2, 0});
    t.compare_memory(rtl, model, kClk);
    CHECK(t.passed());
  }
}

TEST_CASE("memory: a run cut short compares only the requests both sides made", "[timing]") {
  const MemoryLog model = {entry(0, false, 0x100, 2500), entry(0, false, 0x140, 3500),
                                             entry(0, true, 0x800, 4500)};
  // The RTL stopped after one read, whose address is wrong: that is the one
  // record; the missing read and write are not counted against it.
  MemoryLog rtl = {entry(0, false, 0x180, 2500)};
  TimingCorrelator t;
  t.compare_memory(rtl, model, kClk, TrafficScope::kCommonPrefix);
  REQUIRE(t.mismatch_count() == 1);
  CHECK(t.mismatches()[0].field == "address");
  TimingCorrelator all;
  all.compare_memory(rtl, model, kClk);
  CHECK(all.mismatch_count() == 3);  // the address, and both channels' counts
}

TEST_CASE("ici: per tile the rows' destination, row, size and send cycle, in order", "[timing]") {
  // Send times are edges: cycle n at 500 + 1000 n ps.
  const std::vector<IciSendEntry> model = {{2500, 1, 0, 64, true, false}, {3500, 1, 1, 64, true, true}};
  const std::string where = "timing ici chip0.tile0";
  SECTION("identical") {
    TimingCorrelator t;
    t.compare_ici(model, model, kClk, where);
    CHECK(t.passed());
  }
  SECTION("to the wrong chip, one row late, then a row too many") {
    std::vector<IciSendEntry> rtl = model;
    rtl[0].dst = 0;
    rtl[1].time = 5500;  // cycle 5 instead of 3
    rtl.push_back({6500, 1, 2, 64, true, true});
    TimingCorrelator t;
    t.compare_ici(rtl, model, kClk, where);
    REQUIRE(t.mismatch_count() == 3);
    const auto& m = t.mismatches();  // earliest first
    CHECK(m[0].where == where);
    CHECK(m[0].id == "row 0");
    CHECK(m[0].field == "destination chip");
    CHECK(m[0].expected == "1");
    CHECK(m[0].actual == "0");
    CHECK(m[0].time == 2500);
    CHECK(m[1].id == "row 1");
    CHECK(m[1].field == "send cycle");
    CHECK(m[1].expected == "3");
    CHECK(m[1].actual == "5");
    CHECK(m[2].field == "row count");
    CHECK(m[2].expected == "2");
    CHECK(m[2].actual == "3");
    CHECK(m[2].time == 6500);  // the extra row's
    REQUIRE(t.first_divergence());
    CHECK(t.first_divergence()->field == "destination chip");
    TimingCorrelator prefix;
    prefix.compare_ici(rtl, model, kClk, where, TrafficScope::kCommonPrefix);
    CHECK(prefix.mismatch_count() == 2);  // no count record
  }
  SECTION("a scratchpad row where the model accumulates") {
    std::vector<IciSendEntry> rtl = model;
    rtl[1].to_acc = false;
    TimingCorrelator t;
    t.compare_ici(rtl, model, kClk, where);
    REQUIRE(t.mismatch_count() == 1);
    CHECK(t.mismatches()[0].field == "destination row");
    CHECK(t.mismatches()[0].expected == "acc 1 last");
    CHECK(t.mismatches()[0].actual == "sp 1 last");
  }
}

TEST_CASE("past the kept number the earliest mismatches are kept whatever order they were found in",
          "[timing]") {
  // 1200 instructions each ending one cycle late (found first, ending from cycle 2 on), then one
  // memory request issued a cycle late at cycle 0: the run's first divergence is the memory
  // request's, and it is kept while the latest instruction mismatches give way.
  const std::size_t n = 1200;
  Program p(n);
  std::vector<InstrEvent> model, rtl;
  for (std::size_t i = 0; i < n; ++i) {
    p[i].op = Opcode::MATMUL;
    p[i].rows = 1;
    p[i].cols = 4;
    model.push_back({i, 2 * i, 2 * i + 1});
    rtl.push_back({i, 2 * i, 2 * i + 2});
  }
  MemoryLog m{entry(0, false, 0x0, 500)}, r{entry(0, false, 0x0, 1500)};  // cycle 0, then 1
  TimingCorrelator t;
  t.compare_instructions(p, rtl, model, kClk);
  t.compare_memory(r, m, kClk);
  CHECK(t.mismatch_count() == n + 1);
  const auto& kept = t.mismatches();
  REQUIRE(kept.size() == Checker::max_recorded());
  CHECK(kept[0].field == "issue cycle");
  CHECK(kept[0].time == 1500);
  // Then instructions 0 to 998 in order, ending at edge 2 i + 2.
  for (std::size_t i = 1; i < kept.size(); ++i) {
    CHECK(kept[i].where == "timing instruction " + std::to_string(i - 1));
    CHECK(kept[i].time == kClk.edge(2 * (i - 1) + 2));
  }
  CHECK(std::is_sorted(kept.begin(), kept.end(), [](const Mismatch& a, const Mismatch& b) { return a.time < b.time; }));
}

TEST_CASE("a checker keeps the earliest mismatches by time then report order from any order of finding",
          "[timing]") {
  struct Recorder : Checker {
    std::string name() const override { return "recorder"; }
    using Checker::report;
  };
  // 5000 findings, times shuffled with many equal ones: kept are the first 1000 of them sorted by
  // (time, order found), as a stable sort of all of them gives.
  std::vector<std::pair<Time, std::size_t>> all;
  std::mt19937_64 rng(7);
  Recorder r;
  for (std::size_t i = 0; i < 5000; ++i) {
    const Time t = rng() % 700;
    all.emplace_back(t, i);
    r.report({t, "w", std::to_string(i), "f", "", ""});
  }
  std::sort(all.begin(), all.end());
  CHECK(r.mismatch_count() == 5000);
  const auto& kept = r.mismatches();
  REQUIRE(kept.size() == Checker::max_recorded());
  bool same = true;
  for (std::size_t i = 0; i < kept.size(); ++i)
    same = same && kept[i].time == all[i].first && kept[i].id == std::to_string(all[i].second);
  CHECK(same);
}
