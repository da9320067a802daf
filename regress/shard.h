#pragma once
// Splitting a suite across machines: shard K of N (1-based) takes every
// test whose position in the suite is K-1 modulo N, so shards are disjoint,
// cover the suite, and do not depend on where or when they run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "regress/suite.h"

namespace mxc::regress {

struct Shard {
  std::uint32_t index = 1;  ///< K, 1-based.
  std::uint32_t count = 1;  ///< N.
  std::string to_string() const { return std::to_string(index) + "/" + std::to_string(count); }
};

/// Parses "K/N" with 1 <= K <= N; throws std::invalid_argument naming the text.
Shard parse_shard(const std::string& text);
/// parse_shard() for text that may be no shard (a database's shard list): nullopt then.
std::optional<Shard> shard_named(const std::string& text);

/// The tests of `shard`, in suite order.
std::vector<TestSpec> select_shard(const std::vector<TestSpec>& tests, const Shard& shard);

}  // namespace mxc::regress
