#pragma once
// How many CPUs this process may run on: what decides whether a test's
// second thread has a core to itself.
#include <optional>
#include <string>

namespace mxc::regress {

/// The CPUs of this process's affinity mask (taskset, Slurm's and
/// container's cpusets), lowered to the whole CPUs of its cgroup's CPU
/// quota (cgroup v2 cpu.max, v1 cpu.cfs_quota_us) where one is set; at
/// least 1.
unsigned usable_cpus();

/// CPUs a cgroup v2 `cpu.max` text allows ("200000 100000" -> 2, rounded up;
/// "max 100000" -> none); none when it does not read as one.
std::optional<unsigned> cpus_of_cpu_max(const std::string& text);

}  // namespace mxc::regress
