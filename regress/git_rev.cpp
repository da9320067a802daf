#include "regress/git_rev.h"

#include <unistd.h>

#include <array>
#include <cstdio>

#include "regress/outcome.h"

namespace mxc::regress {

std::string git_revision(const std::string& dir) {
  const std::string cmd = "git -C " + shell_join({dir}) + " rev-parse HEAD 2>/dev/null";
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "unknown";
  std::array<char, 128> buf{};
  std::string out;
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int rc = pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (rc != 0 || out.size() < 7) return "unknown";
  return out;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

}  // namespace mxc::regress
