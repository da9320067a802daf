#include "models/ici/topology.h"

#include <algorithm>
#include <stdexcept>

namespace mxc::ici {

Topology::Topology(std::vector<std::uint32_t> dims, std::vector<bool> wrap) : m_dims(std::move(dims)) {
  if (m_dims.empty()) throw std::invalid_argument("topology: at least one dimension is required");
  if (wrap.size() == 1) wrap.assign(m_dims.size(), wrap[0]);
  if (wrap.size() != m_dims.size())
    throw std::invalid_argument("topology: wrap must have one entry or one per dimension");
  m_wrap = std::move(wrap);
  std::uint64_t n = 1;
  for (std::uint32_t k : m_dims) {
    if (k == 0) throw std::invalid_argument("topology: dimension sizes must be >= 1");
    m_stride.push_back(static_cast<std::uint32_t>(n));
    n *= k;
    if (n > (1u << 24)) throw std::invalid_argument("topology: more than 16M chips");
  }
  m_num_chips = static_cast<std::uint32_t>(n);
}

std::vector<std::uint32_t> Topology::coords(std::uint32_t chip) const {
  std::vector<std::uint32_t> c(m_dims.size());
  for (std::uint32_t d = 0; d < num_dims(); ++d) c[d] = coord(chip, d);
  return c;
}

std::uint32_t Topology::chip_at(const std::vector<std::uint32_t>& c) const {
  std::uint32_t chip = 0;
  for (std::uint32_t d = 0; d < num_dims(); ++d) chip += c[d] * m_stride[d];
  return chip;
}

std::uint32_t Topology::with_coord(std::uint32_t chip, std::uint32_t d, std::uint32_t c) const {
  return chip - coord(chip, d) * m_stride[d] + c * m_stride[d];
}

std::uint32_t Topology::neighbour(std::uint32_t chip, std::uint32_t p) const {
  const std::uint32_t d = p / 2;
  const std::uint32_t k = m_dims[d];
  if (k == 1) return kNoChip;
  const std::uint32_t c = coord(chip, d);
  const bool minus = (p & 1) != 0;
  if (!minus) {
    if (c + 1 < k) return with_coord(chip, d, c + 1);
    return m_wrap[d] ? with_coord(chip, d, 0) : kNoChip;
  }
  if (c > 0) return with_coord(chip, d, c - 1);
  return m_wrap[d] ? with_coord(chip, d, k - 1) : kNoChip;
}

bool Topology::is_wrap_link(std::uint32_t chip, std::uint32_t p) const {
  const std::uint32_t d = p / 2;
  if (!m_wrap[d] || m_dims[d] == 1) return false;
  const std::uint32_t c = coord(chip, d);
  return (p & 1) ? c == 0 : c + 1 == m_dims[d];
}

std::uint32_t Topology::diameter() const {
  std::uint32_t h = 0;
  for (std::uint32_t d = 0; d < num_dims(); ++d) h += m_wrap[d] ? m_dims[d] / 2 : m_dims[d] - 1;
  return h;
}

std::uint32_t Topology::hops(std::uint32_t src, std::uint32_t dst) const {
  std::uint32_t h = 0;
  for (std::uint32_t d = 0; d < num_dims(); ++d) {
    const std::uint32_t a = coord(src, d), b = coord(dst, d), k = m_dims[d];
    const std::uint32_t fwd = (b + k - a) % k;
    h += m_wrap[d] ? std::min(fwd, k - fwd) : (a > b ? a - b : b - a);
  }
  return h;
}

std::uint32_t Topology::active_dims() const {
  return static_cast<std::uint32_t>(std::count_if(m_dims.begin(), m_dims.end(), [](std::uint32_t k) { return k > 1; }));
}

std::vector<std::uint32_t> Topology::snake_order() const {
  // Each added dimension walks the previous order forwards, then backwards:
  // consecutive entries differ by one step in one coordinate.
  std::vector<std::uint32_t> order{0};
  for (std::uint32_t d = 0; d < num_dims(); ++d) {
    std::vector<std::uint32_t> next;
    next.reserve(order.size() * m_dims[d]);
    for (std::uint32_t j = 0; j < m_dims[d]; ++j) {
      if (j % 2 == 0)
        for (auto it = order.begin(); it != order.end(); ++it) next.push_back(*it + j * m_stride[d]);
      else
        for (auto it = order.rbegin(); it != order.rend(); ++it) next.push_back(*it + j * m_stride[d]);
    }
    order = std::move(next);
  }
  return order;
}

std::string Topology::describe() const {
  std::string s;
  for (std::uint32_t d = 0; d < num_dims(); ++d) {
    if (d) s += 'x';
    s += std::to_string(m_dims[d]);
  }
  const bool all = std::all_of(m_wrap.begin(), m_wrap.end(), [](bool w) { return w; });
  const bool none = std::none_of(m_wrap.begin(), m_wrap.end(), [](bool w) { return w; });
  s += num_dims() == 1 ? " ring" : " torus";
  if (none) s += " (no wrap)";
  else if (!all) s += " (partial wrap)";
  return s;
}

}  // namespace mxc::ici
