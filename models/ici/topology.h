#pragma once
// Topology: a ring, 2D or 3D torus (any number of dimensions, any sizes), each
// dimension with or without wraparound. Chips are numbered with dimension 0
// varying fastest; each chip has two ports per dimension (plus and minus).
#include <cstdint>
#include <string>
#include <vector>

namespace mxc::ici {

/// Sentinel for "no chip" (a missing neighbour at a mesh edge).
inline constexpr std::uint32_t kNoChip = 0xffffffffu;

class Topology {
 public:
  /// dims: size of each dimension (>= 1); wrap: per dimension, or one entry for all.
  Topology(std::vector<std::uint32_t> dims, std::vector<bool> wrap);

  std::uint32_t num_dims() const { return static_cast<std::uint32_t>(m_dims.size()); }
  std::uint32_t num_chips() const { return m_num_chips; }
  std::uint32_t num_ports() const { return 2 * num_dims(); }
  std::uint32_t dim_size(std::uint32_t d) const { return m_dims[d]; }
  bool wraps(std::uint32_t d) const { return m_wrap[d]; }
  const std::vector<std::uint32_t>& dims() const { return m_dims; }

  /// Coordinate of `chip` in dimension d.
  std::uint32_t coord(std::uint32_t chip, std::uint32_t d) const { return (chip / m_stride[d]) % m_dims[d]; }
  std::vector<std::uint32_t> coords(std::uint32_t chip) const;
  std::uint32_t chip_at(const std::vector<std::uint32_t>& coords) const;
  /// `chip` with its coordinate in dimension d replaced by c.
  std::uint32_t with_coord(std::uint32_t chip, std::uint32_t d, std::uint32_t c) const;

  /// Port numbering: 2*d for the plus direction, 2*d+1 for minus.
  static std::uint32_t port(std::uint32_t d, bool minus) { return 2 * d + (minus ? 1 : 0); }
  /// Neighbour through `port`, or kNoChip at a mesh edge or a dimension of size 1.
  std::uint32_t neighbour(std::uint32_t chip, std::uint32_t port) const;
  /// Whether the link out of `port` is the wraparound link (the dateline).
  bool is_wrap_link(std::uint32_t chip, std::uint32_t port) const;

  /// Minimal hop count between two chips under dimension-order routing.
  std::uint32_t hops(std::uint32_t src, std::uint32_t dst) const;
  /// Most hops between two chips: half of each ring, all but one of each line.
  std::uint32_t diameter() const;
  /// Number of dimensions of size > 1 (the ones that have links).
  std::uint32_t active_dims() const;
  /// A Hamiltonian-like ring order over all chips where consecutive chips are
  /// neighbours (reflected mixed-radix Gray code, "snake" order).
  std::vector<std::uint32_t> snake_order() const;

  /// e.g. "4x4x4 torus" or "8 ring (no wrap)".
  std::string describe() const;

 private:
  std::vector<std::uint32_t> m_dims;
  std::vector<bool> m_wrap;
  std::vector<std::uint32_t> m_stride;
  std::uint32_t m_num_chips = 1;
};

}  // namespace mxc::ici
