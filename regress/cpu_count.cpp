#include "regress/cpu_count.h"

#include <sched.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

namespace mxc::regress {

namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The CPUs of the quota of this process's cgroup: v2 (the "0::PATH" line of
// /proc/self/cgroup) or v1's cpu controller ("N:cpu,cpuacct:PATH").
std::optional<unsigned> cgroup_cpus() {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty()) {
      if (const auto n = cpus_of_cpu_max(read_first_line("/sys/fs/cgroup" + path + "/cpu.max"))) return n;
    }
    std::stringstream list(controllers);
    for (std::string c; std::getline(list, c, ',');) {
      if (c != "cpu") continue;
      for (const std::string root : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
        const std::string quota = read_first_line(root + path + "/cpu.cfs_quota_us");
        const std::string period = read_first_line(root + path + "/cpu.cfs_period_us");
        if (!quota.empty() && !period.empty())
          if (const auto n = cpus_of_cpu_max(quota == "-1" ? "max " + period : quota + " " + period)) return n;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<unsigned> cpus_of_cpu_max(const std::string& text) {
  std::istringstream in(text);
  std::string quota;
  long long period = 0;
  if (!(in >> quota >> period) || period <= 0 || quota == "max") return std::nullopt;
  std::size_t used = 0;
  long long q = 0;
  try {
    q = std::stoll(quota, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != quota.size() || q <= 0) return std::nullopt;
  return static_cast<unsigned>(std::max(1LL, (q + period - 1) / period));
}

unsigned usable_cpus() {
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = std::max(1, CPU_COUNT(&set));
  if (const auto quota = cgroup_cpus()) n = std::min(n, *quota);
  return std::max(1u, n);
}

}  // namespace mxc::regress
