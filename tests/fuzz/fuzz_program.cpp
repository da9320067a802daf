// libFuzzer target: tile programs in assembly (load_program_file with the
// tile's checks), on a 4x4 tile.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>

#include "models/mxu/assembler.h"
#include "tests/fuzz/fuzz_oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One file a process, removed when it ends.
  static const struct Scratch {
    std::string path = "/tmp/mxcosim_fuzz_program_" + std::to_string(::getpid()) + ".s";
    ~Scratch() { std::remove(path.c_str()); }
  } scratch;
  const std::string& path = scratch.path;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  mxc::fuzz::accept_or_named_error(path, [&] { mxc::load_program_file(path, mxc::TileGeometry{}); });
  return 0;
}
