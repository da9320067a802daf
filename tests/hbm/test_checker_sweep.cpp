// Every preset x pattern x refresh mode x page policy runs clean under the
// independent timing checker (it once caught tRC < tRAS + tRP after rounding
// to cycles letting a refresh follow an auto-precharge too early on HBM2E).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/hbm/closed_loop.h"
#include "models/hbm/pattern_source.h"
#include "tests/hbm/hbm_test_util.h"

using namespace mxc;
using namespace mxc::hbm;

TEST_CASE("all presets and policies run clean under the timing checker") {
  for (const char* preset : {"hbm2.yaml", "hbm2e_3200.yaml", "hbm2e_3600.yaml", "hbm3.yaml"}) {
    for (const char* pattern : {"seq", "random", "stride", "mix", "chase"}) {
      for (RefreshMode refresh : {RefreshMode::kAllBank, RefreshMode::kPerBank, RefreshMode::kNone}) {
        for (PagePolicy page : {PagePolicy::kOpen, PagePolicy::kClosed}) {
          MemoryConfig cfg = test::preset(preset);
          cfg.controller.refresh = refresh;
          cfg.controller.page_policy = page;
          HbmModel m("hbm", cfg);
          PatternOptions p;
          p.pattern = pattern;
          p.requests = 2000;
          p.bytes = 96;  // unaligned multi-burst requests
          p.write_ratio = 0.3;
          PatternSource src(p);
          INFO(preset << " " << pattern << " refresh " << static_cast<int>(refresh) << " page "
                      << static_cast<int>(page));
          REQUIRE_NOTHROW(run_closed_loop(m, src, 32));
          CHECK(m.requests_done() == 2000);
          CHECK(m.checker()->violation_count() == 0);
          CHECK(m.checker()->commands() > 0);
        }
      }
    }
  }
}

namespace {

/// Each pseudo-channel's commands as issued, for the spacing tests below.
struct Issued {
  std::vector<std::vector<DramCommand>> by_pc;
  std::uint64_t checked = 0, violations = 0;
};

Issued run_recorded(const MemoryConfig& cfg, const char* pattern, std::uint32_t bytes, std::uint64_t requests,
                    std::uint32_t window) {
  HbmModel m("hbm", cfg);
  Issued out;
  out.by_pc.resize(std::size_t{cfg.stacks} * cfg.device.org.pcs());
  m.set_command_observer([&](std::uint32_t pc, const DramCommand& c) { out.by_pc.at(pc).push_back(c); });
  PatternOptions p;
  p.pattern = pattern;
  p.requests = requests;
  p.bytes = bytes;
  p.write_ratio = std::string(pattern) == "mix" ? 0.5 : 0;
  PatternSource src(p);
  run_closed_loop(m, src, window);
  REQUIRE(m.requests_done() == requests);
  out.checked = m.checker()->commands();
  out.violations = m.checker()->violation_count();
  if (out.violations) WARN(m.checker()->violations().front());
  return out;
}

}  // namespace

TEST_CASE("HBM3 random reads keep the precharges of a pseudo-channel tPPD apart") {
  // Random 64 B reads on open pages are row conflicts: a PRE and an ACT each, and a
  // pseudo-channel's PREs follow each other closely (1 cycle apart without tPPD).
  MemoryConfig cfg = test::preset("hbm3.yaml");
  const std::uint32_t ppd = cfg.device.t.PPD;
  REQUIRE(ppd == 2);
  for (const RefreshMode refresh : {RefreshMode::kAllBank, RefreshMode::kPerBank}) {
    INFO("refresh " << static_cast<int>(refresh));
    cfg.controller.refresh = refresh;
    const Issued r = run_recorded(cfg, "random", 64, 20000, 256);
    CHECK(r.checked > 0);
    CHECK(r.violations == 0);
    std::uint64_t pres = 0, closer = 0, at_ppd = 0;
    for (const auto& cmds : r.by_pc) {
      std::uint64_t last = 0;
      bool any = false;
      for (const DramCommand& c : cmds) {
        if (c.cmd != Cmd::kPre && c.cmd != Cmd::kPreA) continue;
        ++pres;
        if (any && c.cycle - last < ppd) ++closer;
        if (any && c.cycle - last == ppd) ++at_ppd;
        last = c.cycle;
        any = true;
      }
    }
    CHECK(pres > 10000);
    CHECK(closer == 0);
    CHECK(at_ppd > 100);  // the rule binds, and no more than it
  }
  // HBM2 has no tPPD: its PREs may follow each other in the next cycle.
  const Issued h2 = run_recorded(test::preset("hbm2.yaml"), "random", 64, 20000, 256);
  CHECK(h2.violations == 0);
  std::uint64_t next_cycle = 0;
  for (const auto& cmds : h2.by_pc) {
    const DramCommand* last = nullptr;
    for (const DramCommand& c : cmds) {
      if (c.cmd != Cmd::kPre && c.cmd != Cmd::kPreA) continue;
      if (last && c.cycle == last->cycle + 1) ++next_cycle;
      last = &c;
    }
  }
  CHECK(next_cycle > 100);
}

TEST_CASE("HBM3 per-bank refresh keeps tRRD_L after an activate in the refreshed bank's group") {
  // tRRD_S 4, tRRD_L 5: a REFsb 4 cycles after an activate of another bank of its group is early.
  MemoryConfig cfg = test::preset("hbm3.yaml");
  cfg.controller.refresh = RefreshMode::kPerBank;
  const HbmTiming& t = cfg.device.t;
  REQUIRE(t.RRD_L > t.RRD_S);
  const std::uint32_t per_group = cfg.device.org.banks_per_group;
  for (const char* pattern : {"random", "mix"}) {
    INFO(pattern);
    const Issued r = run_recorded(cfg, pattern, 64, 60000, 256);
    CHECK(r.violations == 0);
    std::uint64_t refreshes = 0, early = 0, at_rrd_l = 0;
    for (const auto& cmds : r.by_pc) {
      std::vector<std::uint64_t> group_act(cfg.device.org.bank_groups, 0);
      std::vector<bool> seen(cfg.device.org.bank_groups, false);
      for (const DramCommand& c : cmds) {
        const std::uint32_t g = c.bank / per_group;
        if (c.cmd == Cmd::kAct) {
          group_act[g] = c.cycle;
          seen[g] = true;
        } else if (c.cmd == Cmd::kRefSb) {
          ++refreshes;
          if (seen[g] && c.cycle - group_act[g] < t.RRD_L) ++early;
          if (seen[g] && c.cycle - group_act[g] == t.RRD_L) ++at_rrd_l;
        }
      }
    }
    CHECK(refreshes > 2000);
    CHECK(early == 0);
    CHECK(at_rrd_l > 10);  // the rule binds, and no more than it
  }
}
