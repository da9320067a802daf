#pragma once
// The ideal-memory options `run` and `serve` share, so a client and its
// server can be given the same memory from the command line.
#include <cxxopts.hpp>

#include "cosim/system_config.h"

namespace mxc::app {

/// Adds --mem-latency-ns and --mem-outstanding to `opts`, in `group`.
void add_memory_options(cxxopts::Options& opts, const std::string& group = "");

/// Applies those options to `c`, overriding the config; throws
/// std::invalid_argument naming the option when a value is out of range.
void apply_memory_options(const cxxopts::ParseResult& args, SystemConfig& c);

}  // namespace mxc::app
