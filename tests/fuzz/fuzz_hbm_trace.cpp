// libFuzzer target: HBM request traces (TraceSource, both formats, plain or
// gzip: zlib reads either from the same file). The input is written to a
// file and read to its end.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>

#include "models/hbm/trace_source.h"
#include "tests/fuzz/fuzz_oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One file a process, removed when it ends.
  static const struct Scratch {
    std::string path = "/tmp/mxcosim_fuzz_trace_" + std::to_string(::getpid()) + ".trace";
    ~Scratch() { std::remove(path.c_str()); }
  } scratch;
  const std::string& path = scratch.path;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  mxc::fuzz::accept_or_named_error(path, [&] {
    mxc::hbm::TraceSource source(path, mxc::hbm::TraceFormat::kAuto, 1000, 64);
    mxc::hbm::SourceItem item;
    while (source.next(item) == mxc::hbm::RequestSource::Next::kReady) {
    }
  });
  return 0;
}
