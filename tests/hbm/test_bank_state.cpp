// BankState::earliest_branch_free against earliest(): the same time and the
// same binding constraint for every command and bank, over the states a
// random stream of legal commands leaves behind (ties between scopes
// included: the first scope in bank, group, pseudo-channel, tFAW, command
// bus order must be named).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>

#include "models/hbm/bank_state.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc::hbm;

TEST_CASE("earliest_branch_free gives earliest's time and binding constraint") {
  std::uint64_t compared = 0, shared_binds = 0;
  for (const char* preset : {"hbm2.yaml", "hbm3.yaml"}) {
    for (const bool dual : {true, false}) {
      const MemoryConfig cfg = test::preset(preset);
      const HbmOrg& org = cfg.device.org;
      BankState state(org, cfg.device.t, dual);
      std::mt19937_64 rng(3 + dual);
      std::uint64_t now = 0;
      for (int round = 0; round < 4000; ++round) {
        for (int c = 0; c < kNumCmds; ++c) {
          const Cmd cmd = static_cast<Cmd>(c);
          for (std::uint32_t b = 0; b < org.banks(); ++b) {
            Constraint plain = Constraint::kCount, branch_free = Constraint::kCount;
            const std::uint64_t at = state.earliest(cmd, b, &plain);
            INFO(preset << (dual ? " dual" : " single") << ", round " << round << ", command " << c << ", bank " << b);
            REQUIRE(state.earliest_branch_free(cmd, b, &branch_free) == at);
            REQUIRE(branch_free == plain);
            // The timing rules' part alone (the command bus left out) agrees too, and is the
            // whole answer whenever the bus does not bind.
            std::uint64_t rules_plain = 0, rules_free = 0;
            Constraint why_plain = Constraint::kCount, why_free = Constraint::kCount;
            state.earliest(cmd, b, nullptr, &rules_plain, &why_plain);
            REQUIRE(state.earliest_branch_free(cmd, b, nullptr, &rules_free, &why_free) == at);
            REQUIRE(rules_free == rules_plain);
            REQUIRE(why_free == why_plain);
            REQUIRE(rules_plain <= at);
            if (plain != Constraint::kCmdBus) REQUIRE((rules_plain == at && why_plain == plain));
            ++compared;
            shared_binds += at > 0 && at == state.earliest_floor(cmd);
          }
        }
        // A legal command to a random bank, at its earliest cycle or a
        // little later: ACT to a closed bank, else RD, WR or PRE; now and
        // then an all-bank refresh after closing every bank.
        const auto bank = static_cast<std::uint32_t>(rng() % org.banks());
        Cmd cmd = Cmd::kAct;
        if (rng() % 200 == 0) {
          cmd = state.open_banks() ? Cmd::kPreA : Cmd::kRefAb;
        } else if (state.open_row(bank) != BankState::kClosed) {
          const Cmd open_cmds[] = {Cmd::kRd, Cmd::kWr, Cmd::kPre, Cmd::kRd};
          cmd = open_cmds[rng() % 4];
        }
        now = std::max(now, state.earliest(cmd, bank)) + rng() % 3;
        state.issue(cmd, bank, static_cast<std::uint32_t>(rng() % 8), now);
      }
    }
  }
  CHECK(compared > 500000);
  // The part shared by all banks (pseudo-channel, tFAW, command bus) often
  // binds: there a bank's or group's equal time must not be named instead.
  CHECK(shared_binds > 1000);
}

TEST_CASE("a read's auto-precharge after a write to its bank waits out write recovery") {
  // HBM2 preset: tRCDWR 12, CWL 5, burst 2, tWTR_L 8, tWR 16, tRTP 5,
  // tRAS 34, tRP 14, tRC 48. WR at 12, RDA at 12 + 5 + 2 + 8 = 27: its
  // precharge starts at write recovery, 12 + 5 + 2 + 16 = 35 (not at
  // 27 + tRTP = 32 or tRAS = 34), so the bank opens again at 35 + 14 = 49,
  // past tRC's 48.
  const MemoryConfig cfg = test::preset("hbm2.yaml");
  BankState state(cfg.device.org, cfg.device.t, true);
  state.issue(Cmd::kAct, 0, 1, 0);
  state.issue(Cmd::kWr, 0, 1, 12);
  REQUIRE(state.earliest(Cmd::kRdA, 0) == 27);
  state.issue(Cmd::kRdA, 0, 1, 27);
  Constraint why = Constraint::kCount;
  CHECK(state.earliest(Cmd::kAct, 0, &why) == 49);
  CHECK(why == Constraint::kWR);
  CHECK(state.earliest(Cmd::kRefSb, 0) == 49);
  // Without the write the same RDA lets the bank open at tRC.
  BankState read_only(cfg.device.org, cfg.device.t, true);
  read_only.issue(Cmd::kAct, 0, 1, 0);
  read_only.issue(Cmd::kRdA, 0, 1, 27);
  CHECK(read_only.earliest(Cmd::kAct, 0) == 48);
}

TEST_CASE("BankState spaces HBM3 precharges tPPD apart and names no tPPD on HBM2") {
  // Banks 0 and 4 (other bank groups) open, both past tRAS (HBM3 45, HBM2 34) when bank 0 is
  // precharged at 100.
  for (const char* preset : {"hbm3.yaml", "hbm2.yaml"}) {
    INFO(preset);
    const MemoryConfig cfg = test::preset(preset);
    const bool ppd = cfg.device.t.PPD > 0;  // HBM3 2, HBM2 0 (no such rule)
    BankState state(cfg.device.org, cfg.device.t, true);
    state.issue(Cmd::kAct, 0, 1, 0);
    state.issue(Cmd::kAct, 4, 1, 4);
    state.issue(Cmd::kPre, 0, 1, 100);
    for (const Cmd next : {Cmd::kPre, Cmd::kPreA}) {
      Constraint why = Constraint::kCount, rules_why = Constraint::kCount;
      std::uint64_t rules_at = 0;
      const std::uint64_t at = state.earliest(next, 4, &why, &rules_at, &rules_why);
      if (ppd) {
        CHECK(at == 102);
        CHECK(why == Constraint::kPPD);
      } else {
        // The row bus, free from 101, is all that holds it; a tPPD of 0 is no rule and names none.
        CHECK(at == 101);
        CHECK(why == Constraint::kCmdBus);
        CHECK(rules_at < 101);
        CHECK(rules_why != Constraint::kPPD);
      }
    }
    // A PREA delays the next precharge alike.
    state.issue(Cmd::kPreA, 0, 0, 110);
    Constraint why = Constraint::kCount;
    CHECK(state.earliest(Cmd::kPre, 8, &why) == (ppd ? 112u : 111u));
    CHECK(why == (ppd ? Constraint::kPPD : Constraint::kCmdBus));
  }
}

TEST_CASE("BankState holds a per-bank refresh tRRD_L after an activate in its bank group") {
  // HBM3: tRRD_S 4, tRRD_L 5; banks 0 and 1 in bank group 0, bank 4 in group 1.
  const MemoryConfig cfg = test::preset("hbm3.yaml");
  BankState state(cfg.device.org, cfg.device.t, true);
  state.issue(Cmd::kAct, 0, 1, 0);
  Constraint why = Constraint::kCount;
  CHECK(state.earliest(Cmd::kRefSb, 1, &why) == 5);
  CHECK(why == Constraint::kRRD_L);
  CHECK(state.earliest(Cmd::kRefSb, 4, &why) == 4);
  CHECK(why == Constraint::kRRD_S);
}
