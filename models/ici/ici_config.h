#pragma once
// Parameters of an ICI fabric, shared by the packet-level torus model and the
// analytical model so that both describe the same machine.
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/time.h"

namespace mxc::ici {

/// Limits of a link's bandwidth in GB/s, 1 MB/s to 1 PB/s: of a config file's
/// link.bandwidth_gbps, of every IciConfig (below 5e-10, link_bytes_per_s()
/// would be 0) and of `mxcosim model --ici-gbps`.
inline constexpr double kMinLinkGbps = 1e-3, kMaxLinkGbps = 1e6;
/// The most chips a fabric may have.
inline constexpr std::uint64_t kMaxChips = 65536;

struct IciConfig {
  std::string name = "ici";
  std::string model = "torus";              ///< "torus" (packet level) or "analytic".
  std::vector<std::uint32_t> dims{4, 4};    ///< Chips per dimension.
  std::vector<bool> wrap{true};             ///< Wraparound per dimension (or one for all).
  double link_gbps = 45.0;                  ///< Bandwidth per link per direction, GB/s (1e9 B/s).
  Time link_latency_ps = 500'000;           ///< Wire + SerDes latency of one link.
  Time router_latency_ps = 500'000;         ///< Per-hop router latency (route + switch).
  std::uint32_t max_payload_bytes = 4096;   ///< Largest payload of one wire packet.
  std::uint32_t header_bytes = 64;          ///< Header (and CRC) bytes per wire packet.
  std::uint32_t flit_bytes = 64;            ///< Buffer and credit granule.
  std::uint32_t vcs_per_class = 2;          ///< VCs in each dateline class (2 classes).
  std::uint32_t buffer_bytes_per_vc = 131072;  ///< Input buffer per VC per port.
  /// Messages a chip may have accepted and not yet sent. Each stays at least
  /// the router latency, so it must cover router latency x ports x link
  /// bandwidth / the smallest wire packet or it caps throughput (Little's
  /// law): 500 ns x 6 x 45 GB/s / (1 + 64) B = 2077 on a 3-D torus
  /// (docs/ici.md, "Injection"). 256 capped 64 B packets at 0.12 of the load.
  std::uint32_t injection_queue = 4096;
  bool datelines = true;                    ///< Off only for experiments: can deadlock.

  /// Link bandwidth in bytes per second.
  std::uint64_t link_bytes_per_s() const { return static_cast<std::uint64_t>(link_gbps * 1e9 + 0.5); }
  /// Time to serialise `wire_bytes` on a link, rounded up to a picosecond.
  Time serialise_ps(std::uint64_t wire_bytes) const {
    const std::uint64_t bw = link_bytes_per_s();
    return (wire_bytes * 1'000'000'000'000ull + bw - 1) / bw;
  }
  /// Flits a wire packet of `wire_bytes` occupies in a buffer.
  std::uint32_t flits(std::uint64_t wire_bytes) const {
    return static_cast<std::uint32_t>((wire_bytes + flit_bytes - 1) / flit_bytes);
  }
  /// Wire packets a message of `bytes` payload is cut into (at least one).
  std::uint64_t segments(std::uint64_t bytes) const {
    return bytes == 0 ? 1 : (bytes + max_payload_bytes - 1) / max_payload_bytes;
  }
  /// Sum of serialisation times of all wire packets of a message.
  Time message_serialise_ps(std::uint64_t bytes) const;
  /// Zero-load latency of a message over `hops` hops: hops*(router+link) + serialisation.
  Time zero_load_ps(std::uint32_t hops, std::uint64_t bytes) const {
    return hops == 0 ? 0 : hops * (router_latency_ps + link_latency_ps) + message_serialise_ps(bytes);
  }
  /// Throws std::invalid_argument naming the first inconsistent field.
  void validate() const;
  /// Whether `name` is a fabric model: "torus" (packets) or "analytic".
  static bool known_model(const std::string& name) { return name == "torus" || name == "analytic"; }
};

/// `cfg` after validate(): for member initialisers.
inline const IciConfig& validated(const IciConfig& cfg) {
  cfg.validate();
  return cfg;
}

}  // namespace mxc::ici
