#pragma once
// Helpers shared by the HBM tests: presets with the timing checker on, one
// request run to completion, a pattern source that records completions.
#include <string>
#include <tuple>
#include <vector>

#include "models/hbm/config_loader.h"
#include "models/hbm/hbm_model.h"
#include "models/hbm/pattern_source.h"

namespace mxc::hbm::test {

/// A preset from configs/hbm with the independent timing checker switched on.
inline MemoryConfig preset(const std::string& name) {
  MemoryConfig cfg = load_memory_config(std::string(MXCOSIM_SOURCE_DIR) + "/configs/hbm/" + name);
  cfg.check_timing = true;
  return cfg;
}

/// Sends one request at `at` and runs the model until it completes.
inline MemResponse one_request(HbmModel& m, std::uint64_t addr, std::uint32_t bytes, bool write, Time at) {
  std::vector<MemResponse> done;
  m.set_completion([&](const MemResponse& r) { done.push_back(r); });
  MemRequest req;
  req.id = 1;
  req.addr = addr;
  req.bytes = bytes;
  req.write = write;
  req.issue = at;
  if (write) req.data.assign(bytes, 0xab);
  if (!m.send(req, at)) throw std::logic_error("request refused");
  while (done.empty()) {
    const Time t = m.next_event_time();
    if (t == kNever) throw std::logic_error("model idle with a request outstanding");
    m.advance_to(t);
  }
  return done.front();
}

using Completion = std::tuple<std::uint64_t, Time, Time>;  // id, accept, complete

/// A pattern passed through, every completion recorded.
class RecordingSource : public RequestSource {
 public:
  explicit RecordingSource(const PatternOptions& p) : m_src(p) {}
  Next next(SourceItem& out) override { return m_src.next(out); }
  void on_complete(const MemResponse& r) override {
    done.emplace_back(r.id, r.accept, r.complete);
    m_src.on_complete(r);
  }
  std::vector<Completion> done;

 private:
  PatternSource m_src;
};

}  // namespace mxc::hbm::test
