#include "regress/shard.h"

#include <stdexcept>

namespace mxc::regress {

namespace {
bool parse_uint(const std::string& s, std::uint32_t& out) {
  if (s.empty() || s.size() > 9) return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::uint32_t>(c - '0');
  }
  return true;
}
}  // namespace

std::optional<Shard> shard_named(const std::string& text) {
  const auto slash = text.find('/');
  Shard s;
  if (slash == std::string::npos || !parse_uint(text.substr(0, slash), s.index) ||
      !parse_uint(text.substr(slash + 1), s.count) || s.count == 0 || s.index == 0 || s.index > s.count)
    return std::nullopt;
  return s;
}

Shard parse_shard(const std::string& text) {
  const auto s = shard_named(text);
  if (!s) throw std::invalid_argument("--shard '" + text + "': expected K/N with 1 <= K <= N, e.g. 2/4");
  return *s;
}

std::vector<TestSpec> select_shard(const std::vector<TestSpec>& tests, const Shard& shard) {
  std::vector<TestSpec> out;
  for (std::size_t i = 0; i < tests.size(); ++i)
    if (i % shard.count == shard.index - 1) out.push_back(tests[i]);
  return out;
}

}  // namespace mxc::regress
