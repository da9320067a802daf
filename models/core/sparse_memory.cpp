#include "models/core/sparse_memory.h"

#include <algorithm>
#include <cstring>

namespace mxc {

SparseMemory::Page& SparseMemory::page_for_write(std::uint64_t page_index) {
  auto& slot = m_pages[page_index];
  if (!slot) slot = std::make_unique<Page>(Page{});
  return *slot;
}

void SparseMemory::write(std::uint64_t addr, std::span<const std::uint8_t> data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const std::uint64_t a = addr + done;
    const std::size_t offset = a % kPageBytes;
    const std::size_t n = std::min<std::size_t>(kPageBytes - offset, data.size() - done);
    std::memcpy(page_for_write(a / kPageBytes).data() + offset, data.data() + done, n);
    done += n;
  }
}

void SparseMemory::write_masked(std::uint64_t addr, std::span<const std::uint8_t> data,
                                const std::vector<bool>& enable) {
  if (enable.empty()) return write(addr, data);
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (i < enable.size() && enable[i]) {
      const std::uint64_t a = addr + i;
      page_for_write(a / kPageBytes)[a % kPageBytes] = data[i];
    }
  }
}

void SparseMemory::read(std::uint64_t addr, std::span<std::uint8_t> out) const {
  std::size_t done = 0;
  while (done < out.size()) {
    const std::uint64_t a = addr + done;
    const std::size_t offset = a % kPageBytes;
    const std::size_t n = std::min<std::size_t>(kPageBytes - offset, out.size() - done);
    auto it = m_pages.find(a / kPageBytes);
    if (it == m_pages.end())
      std::memset(out.data() + done, 0, n);
    else
      std::memcpy(out.data() + done, it->second->data() + offset, n);
    done += n;
  }
}

std::vector<std::uint8_t> SparseMemory::read(std::uint64_t addr, std::size_t bytes) const {
  std::vector<std::uint8_t> out(bytes);
  read(addr, out);
  return out;
}

}  // namespace mxc
