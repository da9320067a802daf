#pragma once
// Per bank, how many queued bursts hit the bank's open row (and their sum),
// kept up to date by the controller so the scheduler never recounts; and a
// queue position below which every burst is a row hit, so scans for row
// commands skip the hits at the front of the queue.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxc::hbm {

class HitCounts {
 public:
  explicit HitCounts(std::uint32_t banks) : m_bank(banks, 0), m_use_mask(banks <= 64) {}
  std::uint32_t operator[](std::uint32_t bank) const { return m_bank[bank]; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(m_bank.size()); }
  std::uint64_t total() const { return m_total; }
  const std::vector<std::uint32_t>& per_bank() const { return m_bank; }
  /// Bit b set when bank b has hits; valid only when has_mask() (<= 64 banks).
  std::uint64_t mask() const { return m_mask; }
  bool has_mask() const { return m_use_mask; }

  void add(std::uint32_t bank) {
    ++m_bank[bank], ++m_total;
    if (m_use_mask) m_mask |= std::uint64_t{1} << bank;
  }
  void remove(std::uint32_t bank) {
    if (m_bank[bank]) {
      --m_bank[bank], --m_total;
      if (m_use_mask && !m_bank[bank]) m_mask &= ~(std::uint64_t{1} << bank);
    }
  }
  void set(std::uint32_t bank, std::uint32_t n) {
    m_total = m_total - m_bank[bank] + n;
    m_bank[bank] = n;
    if (m_use_mask) {
      if (n) m_mask |= std::uint64_t{1} << bank;
      else m_mask &= ~(std::uint64_t{1} << bank);
    }
  }
  void clear() {
    std::fill(m_bank.begin(), m_bank.end(), 0);
    m_total = 0;
    m_mask = 0;
    m_hits_below = 0;
  }

  /// Every queued burst before this position hits its open row (a lower
  /// bound: the scheduler raises it as it finds hits).
  std::size_t hits_below() const { return m_hits_below; }
  void set_hits_below(std::size_t i) { m_hits_below = i; }
  /// The queue entry at `index` left.
  void on_erase(std::size_t index) { m_hits_below -= index < m_hits_below; }
  /// A row closed: bursts anywhere may have stopped hitting.
  void row_closed() { m_hits_below = 0; }

 private:
  std::vector<std::uint32_t> m_bank;
  std::uint64_t m_total = 0;
  std::uint64_t m_mask = 0;
  std::size_t m_hits_below = 0;
  bool m_use_mask;
};

}  // namespace mxc::hbm
