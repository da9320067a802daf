// libFuzzer target: ICI fabric configs (parse_ici_config), and for an
// accepted config, the fabric it builds: a config the loader accepts must
// build without an error.
#include <cstdint>

#include "models/ici/fabric_factory.h"
#include "models/ici/ici_config_loader.h"
#include "tests/fuzz/fuzz_oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string origin = "fuzz_ici.yaml";
  mxc::ici::IciConfig cfg;
  bool accepted = false;
  mxc::fuzz::accept_or_named_error(origin, [&] {
    cfg = mxc::ici::parse_ici_config(mxc::fuzz::text_of(data, size), origin);
    accepted = true;
  });
  if (accepted) mxc::ici::make_fabric(cfg);
  return 0;
}
