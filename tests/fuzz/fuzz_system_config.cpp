// libFuzzer target: system configs (parse_system_config), which may name
// memory and fabric files: relative names resolve in configs/ (scripts/
// fuzz.sh runs the fuzzer in the repository's root), as the shipped
// system configs' names do.
#include <cstdint>

#include "cosim/system_config.h"
#include "tests/fuzz/fuzz_oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string origin = "fuzz_system.yaml";
  mxc::fuzz::accept_or_named_error(origin,
                                   [&] { mxc::parse_system_config(mxc::fuzz::text_of(data, size), origin, "configs"); });
  return 0;
}
