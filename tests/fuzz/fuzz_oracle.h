#pragma once
// What every fuzz target holds its parser to: the input is accepted, or it
// is refused with a std::exception whose message names the file the input
// stands for (so a user can find the mistake). Anything else (another
// exception, a message that names no file, and under the sanitizers any
// memory error, overflow or leak) stops the fuzzer with the input saved.
#include <cstdio>
#include <cstdlib>
#include <exception>
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

}  // namespace mxc::fuzz
