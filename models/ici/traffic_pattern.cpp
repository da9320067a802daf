#include "models/ici/traffic_pattern.h"

#include <algorithm>
#include <stdexcept>

namespace mxc::ici {

TrafficKind parse_traffic(const std::string& s) {
  if (s == "uniform") return TrafficKind::kUniform;
  if (s == "transpose") return TrafficKind::kTranspose;
  if (s == "neighbour" || s == "neighbor") return TrafficKind::kNeighbour;
  if (s == "hotspot") return TrafficKind::kHotspot;
  throw std::invalid_argument("unknown traffic pattern '" + s + "' (uniform, transpose, neighbour, hotspot)");
}

std::string to_string(TrafficKind k) {
  switch (k) {
    case TrafficKind::kUniform: return "uniform";
    case TrafficKind::kTranspose: return "transpose";
    case TrafficKind::kNeighbour: return "neighbour";
    case TrafficKind::kHotspot: return "hotspot";
  }
  return "?";
}

// Messages name the options of `mxcosim ici`, which sets these.
TrafficPattern::TrafficPattern(TrafficKind kind, const Topology& topo, std::uint32_t hotspot_chip,
                               double hotspot_fraction)
    : m_kind(kind), m_topo(topo), m_hotspot(hotspot_chip), m_senders(topo.num_chips()) {
  if (topo.num_chips() < 2) throw std::invalid_argument("traffic: needs at least 2 chips");
  if (hotspot_chip >= topo.num_chips())
    throw std::invalid_argument("--hotspot-chip " + std::to_string(hotspot_chip) + ": not a chip of the " +
                                std::to_string(topo.num_chips()) + "-chip topology (0.." +
                                std::to_string(topo.num_chips() - 1) + ")");
  if (!(hotspot_fraction >= 0.0 && hotspot_fraction <= 1.0))
    throw std::invalid_argument("--hotspot-fraction must be in [0, 1]");
  m_hotspot_threshold = hotspot_fraction >= 1.0 ? ~0ull : static_cast<std::uint64_t>(hotspot_fraction * 0x1p64);
  if (kind == TrafficKind::kTranspose) {
    const auto& d = topo.dims();
    if (!std::equal(d.begin(), d.end(), d.rbegin()))
      throw std::invalid_argument("traffic: transpose needs dimension sizes that read the same reversed");
    // A chip is its own transpose when its coordinates read the same
    // reversed: all chips are when only a middle dimension has size > 1.
    if (std::count_if(d.begin(), d.end(), [](std::uint32_t k) { return k > 1; }) < 2)
      throw std::invalid_argument(
          "traffic: transpose needs at least two dimensions larger than 1; with one every chip is its own "
          "transpose and nothing would be sent");
    BlockMt64 unused(0);  // transpose draws no numbers
    for (std::uint32_t c = 0; c < topo.num_chips(); ++c) m_senders -= destination(c, unused) == c;
  }
  m_neighbours.resize(topo.num_chips());
  for (std::uint32_t c = 0; c < topo.num_chips(); ++c) {
    for (std::uint32_t p = 0; p < topo.num_ports(); ++p) {
      const std::uint32_t n = topo.neighbour(c, p);
      auto& v = m_neighbours[c];
      if (n != kNoChip && n != c && std::find(v.begin(), v.end(), n) == v.end()) v.push_back(n);
    }
  }
}

std::uint32_t TrafficPattern::uniform(std::uint32_t src, BlockMt64& rng) const {
  const std::uint32_t r = static_cast<std::uint32_t>(rng() % (m_topo.num_chips() - 1));
  return r >= src ? r + 1 : r;
}

std::uint32_t TrafficPattern::destination(std::uint32_t src, BlockMt64& rng) const {
  switch (m_kind) {
    case TrafficKind::kUniform: return uniform(src, rng);
    case TrafficKind::kTranspose: {
      auto c = m_topo.coords(src);
      std::reverse(c.begin(), c.end());
      return m_topo.chip_at(c);
    }
    case TrafficKind::kNeighbour: {
      const auto& v = m_neighbours[src];
      return v.empty() ? src : v[rng() % v.size()];
    }
    case TrafficKind::kHotspot:
      if (src != m_hotspot && rng() < m_hotspot_threshold) return m_hotspot;
      return uniform(src, rng);
  }
  return src;
}

TrafficPattern::HopSample TrafficPattern::hop_sample() const {
  constexpr std::uint32_t kSamples = 4096;
  BlockMt64 rng(1);
  std::uint64_t hops = 0, packets = 0;
  HopSample out;
  for (std::uint32_t i = 0; i < kSamples; ++i) {
    const auto src = static_cast<std::uint32_t>(std::uint64_t{i} * m_topo.num_chips() / kSamples);
    const std::uint32_t dst = destination(src, rng);
    if (dst == src) continue;  // sends nothing
    const std::uint32_t h = m_topo.hops(src, dst);
    out.least = packets == 0 ? h : std::min(out.least, h);
    out.most = std::max(out.most, h);
    hops += h;
    ++packets;
  }
  if (packets) out.mean = static_cast<double>(hops) / static_cast<double>(packets);
  return out;
}

}  // namespace mxc::ici
