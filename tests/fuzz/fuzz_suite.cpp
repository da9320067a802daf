// libFuzzer target: regression suites (parse_suite).
#include <cstdint>

#include "regress/suite.h"
#include "tests/fuzz/fuzz_oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string origin = "fuzz_suite.yaml";
  mxc::fuzz::accept_or_named_error(origin,
                                   [&] { mxc::regress::parse_suite(mxc::fuzz::text_of(data, size), origin); });
  return 0;
}
