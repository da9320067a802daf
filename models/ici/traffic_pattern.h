#pragma once
// Synthetic traffic patterns: who a chip sends its next packet to.
#include <cstdint>
#include <string>
#include <vector>

#include "models/ici/block_mt64.h"
#include "models/ici/topology.h"

namespace mxc::ici {

enum class TrafficKind { kUniform, kTranspose, kNeighbour, kHotspot };

/// "uniform", "transpose", "neighbour" (or "neighbor"), "hotspot".
TrafficKind parse_traffic(const std::string& s);
std::string to_string(TrafficKind k);

class TrafficPattern {
 public:
  /// hotspot_chip / hotspot_fraction matter for kHotspot only.
  TrafficPattern(TrafficKind kind, const Topology& topo, std::uint32_t hotspot_chip = 0,
                 double hotspot_fraction = 0.2);

  TrafficKind kind() const { return m_kind; }
  /// Chips that send anything: all but, for transpose, those on the
  /// diagonal (coordinates that read the same reversed).
  std::uint32_t senders() const { return m_senders; }
  /// Destination of the next packet of `src`; `src` itself means "send nothing"
  /// (transpose on the diagonal). Draws raw outputs of `rng` only.
  std::uint32_t destination(std::uint32_t src, BlockMt64& rng) const;
  /// Hops of a packet, from a fixed sample of sources and their
  /// destinations (for telling how long a run may take or why nothing
  /// arrived, never in results): the mean, the fewest and the most.
  struct HopSample {
    double mean = 0;
    std::uint32_t least = 0, most = 0;
  };
  HopSample hop_sample() const;

 private:
  std::uint32_t uniform(std::uint32_t src, BlockMt64& rng) const;

  TrafficKind m_kind;
  const Topology& m_topo;
  std::uint32_t m_hotspot;
  std::uint64_t m_hotspot_threshold;
  std::uint32_t m_senders;
  std::vector<std::vector<std::uint32_t>> m_neighbours;  // distinct neighbours per chip
};

}  // namespace mxc::ici
