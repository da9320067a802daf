// libFuzzer target: tile programs in assembly (load_program_file with the
// tile's checks), on a 4x4 tile.
#include <cstdint>

#include "models/mxu/assembler.h"
#include "tests/fuzz/fuzz_oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = mxc::fuzz::input_file(data, size, "program", ".s");
  mxc::fuzz::accept_or_named_error(path, [&] { mxc::load_program_file(path, mxc::TileGeometry{}); });
  return 0;
}
