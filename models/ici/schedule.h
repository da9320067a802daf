#pragma once
// A collective as data: a chunk schedule that the CollectiveRunner plays on
// any Fabric. A schedule is a set of independent streams (e.g. the two
// directions of a bidirectional ring, or the 2n parts of an all-axes
// reduction); each stream is a list of phases; each phase a number of steps.
// In every step each chip sends to its peers in its group and then waits for
// the step's messages from its peers before it starts the next step (the
// data it forwards depends on what it received).
#include <cstdint>
#include <string>
#include <vector>

namespace mxc::ici {

/// Which chips form a group: the snake ring over all chips, or the line of
/// chips that differ only in one dimension.
enum class Group : std::uint8_t { kAllChips, kDim };

/// What a chip does in a step.
enum class Pattern : std::uint8_t {
  kShift,     ///< send to the neighbour `dir` along the group's ring
  kPairwise,  ///< step t sends to the peer (t+1)*dir along the ring
  kDirect,    ///< one step: send to every other member of the group
};

struct Phase {
  Group group = Group::kAllChips;
  std::uint32_t dim = 0;       ///< Dimension, for Group::kDim.
  int dir = 1;                 ///< +1 or -1 along the group's ring.
  Pattern pattern = Pattern::kShift;
  std::uint32_t steps = 0;
  std::uint64_t step_bytes = 0;  ///< Bytes each chip sends to each peer per step.
};

struct Stream {
  std::vector<Phase> phases;
};

struct Schedule {
  std::string name;
  std::vector<Stream> streams;
};

}  // namespace mxc::ici
