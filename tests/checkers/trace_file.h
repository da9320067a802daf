#pragma once
// Reading back a trace in the tests: the whole file, gunzipped if it is gzip.
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace mxc::test {

/// The decompressed text of `path` (gzread passes plain files through unchanged).
inline std::string read_trace_text(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string text;
  char buf[4096];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  if (n < 0) throw std::runtime_error("cannot decompress " + path);
  return text;
}

/// The raw bytes of `path`.
inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace mxc::test
