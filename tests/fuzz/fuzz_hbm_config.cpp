// libFuzzer target: HBM memory configs (parse_memory_config, validate), and
// for an accepted config, the model it builds serving a few requests with
// the timing checker on: a config the loader accepts must give a model
// that serves one-burst requests and keeps every JEDEC rule.
#include <cstdint>

#include "models/hbm/closed_loop.h"
#include "models/hbm/config_loader.h"
#include "models/hbm/hbm_model.h"
#include "models/hbm/pattern_source.h"
#include "tests/fuzz/fuzz_oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string origin = "fuzz_hbm.yaml";
  mxc::hbm::MemoryConfig cfg;
  bool accepted = false;
  mxc::fuzz::accept_or_named_error(origin, [&] {
    cfg = mxc::hbm::parse_memory_config(mxc::fuzz::text_of(data, size), origin);
    accepted = true;
  });
  if (!accepted) return 0;
  // An accepted config runs: any exception from here on is a finding.
  cfg.check_timing = true;
  {
    mxc::hbm::HbmModel model("hbm", cfg);
    mxc::hbm::PatternOptions opt;
    opt.pattern = "mix";
    opt.requests = 64;
    // One burst a request: a larger one may not fit a config's queues at all,
    // which the model reports as an error of the request, not of the config.
    opt.bytes = cfg.device.org.burst_bytes();
    opt.write_ratio = 0.5;
    opt.footprint = std::uint64_t{opt.bytes} << 10;
    mxc::hbm::PatternSource source(opt);
    mxc::hbm::run_closed_loop(model, source, 16);
  }
  return 0;
}
