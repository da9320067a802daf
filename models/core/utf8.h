#pragma once
// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
// past U+10FFFF). Configs must be UTF-8, and result files (JSON, JUnit XML)
// are: what comes from elsewhere (a file name, a test's output) is checked
// here.
#include <cstddef>
#include <string_view>

namespace mxc {

/// The length (1 to 4) of the well-formed UTF-8 character that starts at
/// s[i], or 0 when the bytes there are not one.
inline std::size_t utf8_char_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  std::size_t more = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the range of the second byte
  if (c >= 0xc2 && c <= 0xdf) more = 1;
  else if (c == 0xe0) more = 2, lo = 0xa0;
  else if (c == 0xed) more = 2, hi = 0x9f;
  else if (c >= 0xe1 && c <= 0xef) more = 2;
  else if (c == 0xf0) more = 3, lo = 0x90;
  else if (c == 0xf4) more = 3, hi = 0x8f;
  else if (c >= 0xf1 && c <= 0xf3) more = 3;
  else return 0;
  for (std::size_t k = 1; k <= more; ++k) {
    if (i + k >= s.size()) return 0;
    const auto d = static_cast<unsigned char>(s[i + k]);
    if (d < (k == 1 ? lo : 0x80) || d > (k == 1 ? hi : 0xbf)) return 0;
  }
  return more + 1;
}

/// The offset of the first byte of `s` that is not part of well-formed
/// UTF-8, or npos when there is none.
inline std::size_t first_non_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_char_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

}  // namespace mxc
