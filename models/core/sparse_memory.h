#pragma once
// Byte-addressable backing store over a 64-bit address space, allocated in
// 4 KiB pages on first write; unwritten bytes read as zero.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
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
    for (const auto& [index, page] : m_pages) fn(index * kPageBytes, std::span<const std::uint8_t>(*page));
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

  // Ordered map: iteration order is deterministic (image dumps, hashes).
  std::map<std::uint64_t, std::unique_ptr<Page>> m_pages;
};

}  // namespace mxc
