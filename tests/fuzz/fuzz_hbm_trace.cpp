// libFuzzer target: HBM request traces (TraceSource, both formats, plain or
// gzip: zlib reads either from the same file). The input is written to a
// file and read to its end.
#include <cstdint>

#include "models/hbm/trace_source.h"
#include "tests/fuzz/fuzz_oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = mxc::fuzz::input_file(data, size, "trace", ".trace");
  mxc::fuzz::accept_or_named_error(path, [&] {
    mxc::hbm::TraceSource source(path, mxc::hbm::TraceFormat::kAuto, 1000, 64);
    mxc::hbm::SourceItem item;
    while (source.next(item) == mxc::hbm::RequestSource::Next::kReady) {
    }
  });
  return 0;
}
