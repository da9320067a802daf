#pragma once
// CPU seconds this process has used: what the benchmarks time, since on a
// shared machine wall time mostly measures the other processes.
#include <ctime>

namespace mxc::bench {

inline double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace mxc::bench
