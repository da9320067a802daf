#include "memory_options.h"

#include <stdexcept>
#include <string>

namespace mxc::app {

void add_memory_options(cxxopts::Options& opts, const std::string& group) {
  // clang-format off
  opts.add_options(group)
    ("mem-latency-ns", "ideal memory latency in ns (overrides the config)", cxxopts::value<double>())
    ("mem-outstanding", "ideal memory: requests in flight, 1 to 1048576 (overrides the config)",
     cxxopts::value<std::uint32_t>());
  // clang-format on
}

void apply_memory_options(const cxxopts::ParseResult& args, SystemConfig& c) {
  // An HBM system has no use for them: ignored, they would look applied.
  for (const char* opt : {"mem-latency-ns", "mem-outstanding"})
    if (args.count(opt) && c.memory != "ideal")
      throw std::invalid_argument(std::string("--") + opt + ": an ideal memory's option, but " + c.file +
                                  " has memory kind " + c.memory);
  if (args.count("mem-latency-ns")) {
    const double ns = args["mem-latency-ns"].as<double>();
    if (!(ns >= 0) || ns > 1e9) throw std::invalid_argument("--mem-latency-ns must be in [0, 1e9]");
    c.ideal_latency_ps = static_cast<Time>(ns * 1000.0 + 0.5);
    // An error about the field names the option, not the file's line (config_where).
    c.set_by_option["system.memory.latency_ns"] = "--mem-latency-ns";
  }
  if (args.count("mem-outstanding")) {
    const std::uint32_t n = args["mem-outstanding"].as<std::uint32_t>();
    if (n == 0 || n > (1u << 20)) throw std::invalid_argument("--mem-outstanding must be in [1, 1048576]");
    c.ideal_outstanding = n;
    c.set_by_option["system.memory.outstanding"] = "--mem-outstanding";
  }
}

}  // namespace mxc::app
