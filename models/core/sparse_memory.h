#pragma once
// Byte-addressable backing store over a 64-bit address space, allocated in
// 4 KiB pages on first write; unwritten bytes read as zero.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mxc {

class SparseMemory {
 public:
  static constexpr std::uint64_t kPageBytes = 4096;

  void write(std::uint64_t addr, std::span<const std::uint8_t> data);
  /// Writes only the bytes whose enable is set (enable.size() == data.size()).
  void write_masked(std::uint64_t addr, std::span<const std::uint8_t> data, const std::vector<bool>& enable);
  void read(std::uint64_t addr, std::span<std::uint8_t> out) const;
  std::vector<std::uint8_t> read(std::uint64_t addr, std::size_t bytes) const;

  std::size_t pages_allocated() const { return m_pages.size(); }

  /// Calls fn(address, bytes) for every allocated page in address order.
  template <typename Fn>
  void for_each_page(Fn&& fn) const {
    std::vector<std::pair<std::uint64_t, const Page*>> order;
    order.reserve(m_pages.size());
    for (const auto& [index, page] : m_pages) order.emplace_back(index, page.get());
    std::sort(order.begin(), order.end());
    for (const auto& [index, page] : order) fn(index * kPageBytes, std::span<const std::uint8_t>(*page));
  }
  /// A deep copy.
  SparseMemory clone() const {
    SparseMemory copy;
    for_each_page([&](std::uint64_t addr, std::span<const std::uint8_t> bytes) { copy.write(addr, bytes); });
    return copy;
  }

 private:
  using Page = std::array<std::uint8_t, kPageBytes>;
  Page& page_for_write(std::uint64_t page_index);

  // Hashed: every memory request looks its page up. for_each_page sorts the
  // indices, so iteration stays in address order (image dumps, hashes).
  std::unordered_map<std::uint64_t, std::unique_ptr<Page>> m_pages;
};

}  // namespace mxc
