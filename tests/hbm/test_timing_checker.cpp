// The independent timing checker catches each JEDEC constraint violated on
// purpose by one cycle, and accepts the same sequence at exactly the minimum
// distance. Distances are the HBM2 preset's figures (tCK cycles): CL 14,
// CWL 5, tRCDRD 14, tRCDWR 12, tRP 14, tRAS 34, tRC 48, tWR 16, tRTP 5,
// tCCD_S 2, tCCD_L 4, tRRD_S 4, tRRD_L 4, tWTR_S 6, tWTR_L 8, tRTW 13,
// tRFC 260, tRFCsb 160, tRREFD 8, burst 2. Banks: 0 and 1 share
// bank group 0, bank 4 is in group 1.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/hbm/timing_checker.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc;
using namespace mxc::hbm;

namespace {

struct Case {
  const char* rule;
  std::vector<DramCommand> prefix;
  DramCommand last;  // at the legal minimum; the test also tries one cycle earlier
  std::uint32_t faw = 0;  // override tFAW (0 = preset)
  std::uint32_t rc = 0;   // override tRC (0 = preset)
};

DramCommand C(Cmd c, std::uint32_t bank, std::uint64_t cycle, std::uint32_t row = 1) { return {c, bank, row, 0, cycle}; }

std::vector<std::string> run(const HbmDeviceSpec& spec, const std::vector<DramCommand>& cmds) {
  TimingChecker chk(spec, 1, true);
  chk.set_check_refresh(false);
  for (const DramCommand& c : cmds) chk.on_command(0, c);
  return chk.violations();
}

bool mentions(const std::vector<std::string>& v, const std::string& rule) {
  for (const auto& s : v)
    if (s.find(rule) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("timing checker catches each constraint violated by one cycle") {
  const HbmDeviceSpec base = test::preset("hbm2.yaml").device;
  using enum Cmd;
  const std::vector<Case> cases = {
      {"tRCD", {C(kAct, 0, 0)}, C(kRd, 0, 14)},
      {"tRCD", {C(kAct, 0, 0)}, C(kWr, 0, 12)},
      {"tRAS", {C(kAct, 0, 0)}, C(kPre, 0, 34)},
      {"tRP", {C(kAct, 0, 0), C(kPre, 0, 40)}, C(kAct, 0, 54)},
      {"tRC", {C(kAct, 0, 0), C(kPre, 0, 34)}, C(kAct, 0, 48)},
      {"tRRD_S", {C(kAct, 0, 0)}, C(kAct, 4, 4)},
      {"tRRD_L", {C(kAct, 0, 0)}, C(kAct, 1, 4)},
      {"tFAW", {C(kAct, 0, 0), C(kAct, 4, 4), C(kAct, 8, 8), C(kAct, 12, 12)}, C(kAct, 1, 30), 30},
      {"tCCD_S", {C(kAct, 0, 0), C(kAct, 4, 4), C(kRd, 0, 18)}, C(kRd, 4, 20)},
      {"tCCD_L", {C(kAct, 0, 0), C(kRd, 0, 14)}, C(kRd, 0, 18)},
      {"tCCD_S", {C(kAct, 0, 0), C(kAct, 4, 4), C(kWr, 0, 16)}, C(kWr, 4, 18)},
      {"tCCD_L", {C(kAct, 0, 0), C(kWr, 0, 12)}, C(kWr, 0, 16)},
      {"tRTW", {C(kAct, 0, 0), C(kRd, 0, 14)}, C(kWr, 0, 27)},
      {"tWTR_S", {C(kAct, 0, 0), C(kAct, 4, 4), C(kWr, 0, 12)}, C(kRd, 4, 25)},
      {"tWTR_L", {C(kAct, 0, 0), C(kWr, 0, 12)}, C(kRd, 0, 27)},
      {"tWR", {C(kAct, 0, 0), C(kWr, 0, 12)}, C(kPre, 0, 35)},
      {"tWR", {C(kAct, 0, 0), C(kWr, 0, 12)}, C(kPreA, 0, 35)},
      {"tRTP", {C(kAct, 0, 0), C(kRd, 0, 30)}, C(kPre, 0, 35)},
      // A precharge before an RDA's or WRA's own has started waits as after RD or WR.
      {"tRTP", {C(kAct, 0, 0), C(kRdA, 0, 30)}, C(kPre, 0, 35)},
      {"tWR", {C(kAct, 0, 0), C(kWrA, 0, 12)}, C(kPreA, 0, 35)},
      {"tWR", {C(kAct, 0, 0), C(kWrA, 0, 12)}, C(kPre, 0, 35)},
      {"tRP", {C(kAct, 0, 0), C(kRdA, 0, 40)}, C(kAct, 0, 59)},  // auto-precharge at 40 + tRTP
      {"tRFC", {C(kRefAb, 0, 0)}, C(kAct, 0, 260)},
      {"tRFC", {C(kRefAb, 0, 0)}, C(kRefAb, 0, 260)},
      {"tRFCsb", {C(kRefSb, 0, 0)}, C(kAct, 0, 160)},
      {"tRREFD", {C(kRefSb, 0, 0)}, C(kAct, 1, 8)},
      {"tRREFD", {C(kRefSb, 0, 0)}, C(kRefSb, 1, 8)},
      {"tRRD_S", {C(kAct, 0, 0)}, C(kRefSb, 4, 4)},  // a per-bank refresh after another bank's activate
      {"tRP", {C(kAct, 0, 0), C(kPre, 0, 34)}, C(kRefAb, 0, 48)},
      {"tRP", {C(kAct, 0, 0), C(kWrA, 0, 12)}, C(kAct, 0, 49)},  // auto-precharge at 12 + CWL + burst + tWR
      // A read's auto-precharge waits out an earlier write's recovery: WR at
      // 12, RDA at 27 (tWTR_L), precharge at 12 + 5 + 2 + 16 = 35, not at
      // 27 + tRTP = 32 or tRAS = 34.
      {"tRP", {C(kAct, 0, 0), C(kWr, 0, 12), C(kRdA, 0, 27)}, C(kAct, 0, 49)},
      {"tRP", {C(kAct, 0, 0), C(kWr, 0, 12), C(kRdA, 0, 27)}, C(kRefSb, 0, 49)},
      {"tRC", {C(kAct, 0, 0), C(kPre, 0, 34)}, C(kRefSb, 0, 48)},
      {"tRFCsb", {C(kRefSb, 0, 0)}, C(kRefSb, 0, 160)},
      {"tRFC", {C(kRefAb, 0, 0)}, C(kRefSb, 3, 260)},
      {"tRAS", {C(kAct, 0, 0)}, C(kPreA, 0, 34)},
      {"tRTP", {C(kAct, 0, 0), C(kRd, 0, 30)}, C(kPreA, 0, 35)},
      // tRC runs from an ACT to the next ACT or refresh of the bank, and may be
      // longer than tRAS + tRP (HBM3: 45 + 26 < 72); here 50 > 34 + 14.
      {"tRC", {C(kAct, 0, 0), C(kPreA, 0, 34)}, C(kRefAb, 0, 50), 0, 50},
      {"tRC", {C(kAct, 0, 0), C(kPre, 0, 34)}, C(kRefSb, 0, 50), 0, 50},
  };
  for (const Case& c : cases) {
    HbmDeviceSpec spec = base;
    if (c.faw) spec.t.FAW = c.faw;
    if (c.rc) spec.t.RC = c.rc;
    INFO("rule " << c.rule << ", last command " << cmd_name(c.last.cmd) << " at " << c.last.cycle);
    std::vector<DramCommand> ok = c.prefix;
    ok.push_back(c.last);
    const auto clean = run(spec, ok);
    CHECK(clean.empty());
    if (!clean.empty()) WARN(clean.front());
    std::vector<DramCommand> bad = c.prefix;
    bad.push_back(c.last);
    --bad.back().cycle;
    const auto v = run(spec, bad);
    CHECK(mentions(v, c.rule));
    // The query agrees with the check, and records nothing: the last
    // command is legal at its minimum, not a cycle earlier, and asking
    // leaves the verdict on the commands after it unchanged.
    TimingChecker chk(spec, 1, true);
    chk.set_check_refresh(false);
    for (const DramCommand& x : c.prefix) chk.on_command(0, x);
    CHECK_FALSE(chk.legal(0, bad.back()));
    CHECK(chk.legal(0, c.last));
    CHECK(chk.commands() == c.prefix.size());
    chk.on_command(0, c.last);
    CHECK(chk.violation_count() == 0);
  }
}

TEST_CASE("timing checker keeps one burst at a time on a pseudo-channel's data bus, whatever tRTW says") {
  // With tRTW 1 (below CL + burst - CWL = 11) a write 9 cycles after a read
  // puts its data (29 + CWL 5 = 34..35) on the read's (20 + CL 14 = 34..35).
  HbmDeviceSpec spec = test::preset("hbm2.yaml").device;
  spec.t.RTW = 1;
  using enum Cmd;
  const auto overlap = run(spec, {C(kAct, 0, 0), C(kAct, 4, 4), C(kRd, 0, 20), C(kWr, 4, 29)});
  CHECK(mentions(overlap, "WR bank 4: data bus: write data in cycles 34..35 overlaps the read data in cycles 34..35"));
  // Its data may follow the read's at once (31: 36..37); at 28 (33..34) and 30 (35..36) it still meets it.
  CHECK_FALSE(mentions(run(spec, {C(kAct, 0, 0), C(kAct, 4, 4), C(kRd, 0, 20), C(kWr, 4, 31)}), "data bus"));
  CHECK(mentions(run(spec, {C(kAct, 0, 0), C(kAct, 4, 4), C(kRd, 0, 20), C(kWr, 4, 30)}), "data bus"));
  CHECK(mentions(run(spec, {C(kAct, 0, 0), C(kAct, 4, 4), C(kRd, 0, 20), C(kWr, 4, 28)}), "data bus"));
  // A write whose data ends before the read's begins is no overlap: 27 + 5 = 32..33.
  CHECK_FALSE(mentions(run(spec, {C(kAct, 0, 0), C(kAct, 4, 4), C(kRd, 0, 20), C(kWr, 4, 27)}), "data bus"));
  // Reads tCCD apart never meet (CCD >= burst): the preset's own sequences stay clean.
  CHECK(run(test::preset("hbm2.yaml").device, {C(kAct, 0, 0), C(kAct, 4, 4), C(kRd, 0, 18), C(kRd, 4, 20)}).empty());
}

TEST_CASE("timing checker catches state errors and command-bus conflicts") {
  const HbmDeviceSpec spec = test::preset("hbm2.yaml").device;
  using enum Cmd;
  CHECK(mentions(run(spec, {C(kRd, 0, 10)}), "open row"));                          // read of a closed bank
  CHECK(mentions(run(spec, {C(kAct, 0, 0), C(kRd, 0, 20, 2)}), "open row is 1"));  // wrong row
  {
    // The query sees the same: the wrong row, and a bus an ACT still holds.
    TimingChecker chk(spec, 1, true);
    chk.on_command(0, C(kAct, 0, 0));
    CHECK_FALSE(chk.legal(0, C(kRd, 0, 20, 2)));
    CHECK(chk.legal(0, C(kRd, 0, 20, 1)));
    CHECK_FALSE(chk.legal(0, C(kAct, 4, 1)));
  }
  CHECK(mentions(run(spec, {C(kAct, 0, 0), C(kAct, 0, 100)}), "open row"));        // activate an open bank
  CHECK(mentions(run(spec, {C(kAct, 0, 0), C(kRefAb, 0, 100)}), "open row"));      // refresh with a row open
  CHECK(mentions(run(spec, {C(kAct, 0, 0), C(kAct, 4, 0)}), "row command bus"));
  // A row and a column command may share a cycle (dual command interface).
  CHECK(run(spec, {C(kAct, 0, 0), C(kRd, 0, 14), C(kAct, 4, 14)}).empty());
  TimingChecker single(spec, 1, false);
  single.on_command(0, C(kAct, 0, 0));
  single.on_command(0, C(kRd, 0, 14));
  single.on_command(0, C(kAct, 4, 14));
  CHECK(mentions(single.violations(), "command bus"));
}

TEST_CASE("timing checker holds the row command bus for an ACT's ACT_cycles") {
  HbmDeviceSpec spec = test::preset("hbm2.yaml").device;
  REQUIRE(spec.t.ACT_cycles == 2);
  using enum Cmd;
  // Bank 4 (another bank group) has row 0 open from cycle 0; ACT bank 0 at 100.
  const std::vector<DramCommand> open = {C(kAct, 4, 0)};
  auto with = [&](std::vector<DramCommand> cmds) {
    cmds.insert(cmds.begin(), open.begin(), open.end());
    return cmds;
  };
  CHECK(mentions(run(spec, with({C(kAct, 0, 100), C(kPre, 4, 101)})),
                 "row command bus of the channel: busy until cycle 102"));
  CHECK(run(spec, with({C(kAct, 0, 100), C(kPre, 4, 102)})).empty());
  CHECK(run(spec, with({C(kAct, 0, 100), C(kRd, 4, 101)})).empty());  // the column bus is free
  spec.t.ACT_cycles = 1;
  CHECK(run(spec, with({C(kAct, 0, 100), C(kPre, 4, 101)})).empty());
  // One bus for all commands: a column command waits out the ACT too.
  spec.t.ACT_cycles = 2;
  TimingChecker single(spec, 1, false);
  for (const DramCommand& c : with({C(kAct, 0, 100), C(kRd, 4, 101)})) single.on_command(0, c);
  CHECK(mentions(single.violations(), "command bus of the channel: busy until cycle 102"));
}

TEST_CASE("timing checker enforces the refresh rate: at most 8 postponed or pulled in") {
  const HbmDeviceSpec spec = test::preset("hbm2.yaml").device;
  const std::uint64_t refi = spec.t.REFI;
  SECTION("one all-bank refresh per tREFI passes") {
    TimingChecker chk(spec, 1, true);
    for (std::uint64_t k = 1; k <= 20; ++k) chk.on_command(0, C(Cmd::kRefAb, 0, k * refi));
    chk.finish(20 * refi + refi - 1);
    CHECK(chk.violation_count() == 0);
  }
  SECTION("nine missing refreshes are caught") {
    TimingChecker chk(spec, 1, true);
    chk.finish(9 * refi);
    CHECK(mentions(chk.violations(), "refresh interval"));
  }
  SECTION("a refresh that ends a gap of 9 intervals is caught, one that ends 8 passes") {
    // By cycle 9 x tREFI nine refreshes are due and none has come: 9 owed,
    // one past the 8 JEDEC lets a controller postpone, however soon the
    // refresh follows. One cycle earlier only 8 are due.
    TimingChecker late(spec, 1, true);
    late.on_command(0, C(Cmd::kRefAb, 0, 9 * refi + 5));
    CHECK(mentions(late.violations(), "refresh interval: 0 refreshes by cycle " + std::to_string(9 * refi + 5)));
    TimingChecker in_time(spec, 1, true);
    in_time.on_command(0, C(Cmd::kRefAb, 0, 9 * refi - 1));
    CHECK(in_time.violation_count() == 0);
  }
  SECTION("per-bank refresh must cover every bank") {
    TimingChecker chk(spec, 1, true);
    // Only bank 0 is refreshed (once per tREFI): bank 1 falls behind.
    for (std::uint64_t k = 1; k <= 10; ++k) chk.on_command(0, C(Cmd::kRefSb, 0, k * refi));
    chk.finish(10 * refi);
    CHECK(mentions(chk.violations(), "bank 1: refresh interval"));
    CHECK_FALSE(mentions(chk.violations(), "bank 0:"));
    // Named by no command: it was "REFab bank 1" whatever the refresh mode.
    CHECK_FALSE(mentions(chk.violations(), "REFab"));
  }
  SECTION("per-bank refresh round robin every tREFIsb passes over a long run") {
    // 16 x tREFIsb (3 888) is a little under tREFI (3 900): over 3 000
    // rounds each bank runs 3 000 refreshes against 2 990 tREFI, which the
    // pull-in bound must measure against the per-bank round, not tREFI.
    TimingChecker chk(spec, 1, true);
    const std::uint32_t banks = spec.org.banks();
    for (std::uint64_t k = 1; k <= 3000 * banks; ++k)
      chk.on_command(0, C(Cmd::kRefSb, static_cast<std::uint32_t>((k - 1) % banks), k * spec.t.REFIsb));
    chk.finish(3000 * banks * spec.t.REFIsb);
    CHECK(chk.violation_count() == 0);
    if (chk.violation_count()) WARN(chk.violations().front());
  }
  SECTION("more than 8 refreshes pulled in are caught") {
    // Back to back from cycle 0, tRFC apart: the current interval's refresh
    // and 8 pulled in pass, the tenth does not.
    TimingChecker chk(spec, 1, true);
    for (std::uint64_t k = 0; k < 9; ++k) chk.on_command(0, C(Cmd::kRefAb, 0, k * spec.t.RFC));
    CHECK(chk.violation_count() == 0);
    chk.on_command(0, C(Cmd::kRefAb, 0, 9 * spec.t.RFC));
    CHECK(mentions(chk.violations(), "allows at most 9 (8 pulled in)"));
  }
}

TEST_CASE("timing checker shares the command buses among a channel's pseudo-channels") {
  const HbmDeviceSpec spec = test::preset("hbm2.yaml").device;  // 2 pseudo-channels a channel
  using enum Cmd;
  auto check = [&](bool shared, std::uint32_t a, std::uint32_t b, DramCommand first, DramCommand second) {
    TimingChecker chk(spec, 4, true, shared);
    chk.on_command(a, first);
    chk.on_command(b, second);
    return chk.violations();
  };
  // ACT in pseudo-channel 0 at 10: the channel's row bus is busy to 12.
  CHECK(mentions(check(true, 0, 1, C(kAct, 0, 10), C(kAct, 0, 11)), "row command bus of the channel: busy until cycle 12"));
  CHECK(check(true, 0, 1, C(kAct, 0, 10), C(kAct, 0, 12)).empty());
  CHECK(check(true, 0, 2, C(kAct, 0, 10), C(kAct, 0, 10)).empty());   // pseudo-channel 2 is in channel 1
  CHECK(check(false, 0, 1, C(kAct, 0, 10), C(kAct, 0, 10)).empty());  // buses of their own
  // Column commands: one per cycle on the channel's column bus.
  TimingChecker chk(spec, 2, true, true);
  for (std::uint32_t pc : {0u, 1u}) chk.on_command(pc, C(kAct, 0, pc * 2));
  chk.on_command(0, C(kRd, 0, 20));
  chk.on_command(1, C(kRd, 0, 20));
  CHECK(mentions(chk.violations(), "column command bus of the channel: busy until cycle 21"));
  // The channel's commands must come in cycle order.
  CHECK(mentions(check(true, 0, 1, C(kAct, 0, 10), C(kAct, 0, 5)), "before an earlier one of its channel"));
}

TEST_CASE("timing checker holds precharges of a pseudo-channel tPPD apart") {
  // HBM3 preset: tPPD 2, tRAS 45. Banks 0 and 4 open (other bank groups), both past tRAS at 100.
  const HbmDeviceSpec spec = test::preset("hbm3.yaml").device;
  REQUIRE(spec.t.PPD == 2);
  using enum Cmd;
  const std::vector<DramCommand> open = {C(kAct, 0, 0), C(kAct, 4, 4)};
  auto with = [&](std::vector<DramCommand> cmds) {
    cmds.insert(cmds.begin(), open.begin(), open.end());
    return cmds;
  };
  CHECK(mentions(run(spec, with({C(kPre, 0, 100), C(kPre, 4, 101)})), "PRE bank 4: tPPD needs 2, got 1"));
  CHECK(run(spec, with({C(kPre, 0, 100), C(kPre, 4, 102)})).empty());
  // PREA counts on either side, and so does a precharge of a closed bank (a command all the same).
  CHECK(mentions(run(spec, with({C(kPre, 0, 100), C(kPreA, 0, 101)})), "PREA bank 0: tPPD needs 2, got 1"));
  CHECK(run(spec, with({C(kPre, 0, 100), C(kPreA, 0, 102)})).empty());
  CHECK(mentions(run(spec, with({C(kPreA, 0, 100), C(kPre, 8, 101)})), "PRE bank 8: tPPD needs 2, got 1"));
  // Per pseudo-channel: the other pseudo-channel of the channel may precharge in the next cycle.
  TimingChecker two(spec, 2, true);
  two.set_check_refresh(false);
  for (const DramCommand& c : open) two.on_command(0, c);
  two.on_command(1, C(kAct, 0, 6));
  two.on_command(0, C(kPre, 0, 100));
  two.on_command(1, C(kPre, 0, 101));
  CHECK(two.violation_count() == 0);
  // HBM2 has no such rule (tPPD 0): the row bus alone spaces them.
  const HbmDeviceSpec hbm2 = test::preset("hbm2.yaml").device;
  REQUIRE(hbm2.t.PPD == 0);
  CHECK(run(hbm2, with({C(kPre, 0, 100), C(kPre, 4, 101)})).empty());
}

TEST_CASE("timing checker holds a per-bank refresh tRRD_L after an activate in its bank group") {
  // HBM3 preset: tRRD_S 4, tRRD_L 5. Banks 0 and 1 share bank group 0, bank 4 is in group 1.
  const HbmDeviceSpec spec = test::preset("hbm3.yaml").device;
  REQUIRE(spec.t.RRD_S == 4);
  REQUIRE(spec.t.RRD_L == 5);
  using enum Cmd;
  CHECK(mentions(run(spec, {C(kAct, 0, 0), C(kRefSb, 1, 4)}), "REFsb bank 1: tRRD_L needs 5, got 4"));
  CHECK(run(spec, {C(kAct, 0, 0), C(kRefSb, 1, 5)}).empty());
  // Another bank group's: tRRD_S.
  CHECK(run(spec, {C(kAct, 0, 0), C(kRefSb, 4, 4)}).empty());
  CHECK(mentions(run(spec, {C(kAct, 0, 0), C(kRefSb, 4, 3)}), "REFsb bank 4: tRRD_S needs 4, got 3"));
}
