#pragma once
// What every fuzz target holds its parser to: the input is accepted, or it
// is refused with a std::exception whose message names the file the input
// stands for (so a user can find the mistake). Anything else (another
// exception, a message that names no file, and under the sanitizers any
// memory error, overflow or leak) stops the fuzzer with the input saved.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <string_view>

namespace mxc::fuzz {

/// Runs `parse`; aborts unless it returns or throws a std::exception naming `origin`.
template <class Parse>
void accept_or_named_error(const std::string& origin, Parse&& parse) {
  try {
    parse();
  } catch (const std::exception& e) {
    if (std::string_view(e.what()).find(origin) == std::string_view::npos) {
      std::fprintf(stderr, "error does not name '%s': %s\n", origin.c_str(), e.what());
      std::abort();
    }
  } catch (...) {
    std::fprintf(stderr, "not a std::exception\n");
    std::abort();
  }
}

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// The input written to a file for readers that take a path: one file per
/// process (/tmp/mxcosim_fuzz_NAME_PID.SUFFIX), removed when the process ends.
inline const std::string& input_file(const std::uint8_t* data, std::size_t size, const std::string& name,
                                     const std::string& suffix) {
  static const struct Scratch {
    std::string path;
    ~Scratch() { std::remove(path.c_str()); }
  } scratch{"/tmp/mxcosim_fuzz_" + name + "_" + std::to_string(::getpid()) + suffix};
  std::ofstream out(scratch.path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return scratch.path;
}

}  // namespace mxc::fuzz
