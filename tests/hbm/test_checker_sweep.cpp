// Every preset x pattern x refresh mode x page policy runs clean under the
// independent timing checker (it once caught tRC < tRAS + tRP after rounding
// to cycles letting a refresh follow an auto-precharge too early on HBM2E).
#include <catch2/catch.hpp>

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
