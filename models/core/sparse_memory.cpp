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
  // Per page: one pass over the enables finds the first, the last and their
  // count. A burst's strobes are usually one stretch of bytes, stored by one
  // copy; otherwise the bytes between the first and the last are merged in
  // place. A page is allocated only when one of its bytes is enabled, as a
  // byte-by-byte write would.
  const std::size_t bytes = std::min(data.size(), enable.size());
  std::size_t done = 0;
  while (done < bytes) {
    const std::uint64_t a = addr + done;
    const std::size_t offset = a % kPageBytes;
    const std::size_t n = std::min<std::size_t>(kPageBytes - offset, bytes - done);
    std::size_t first = n, last = 0, on = 0;
    auto en = enable.begin() + static_cast<std::ptrdiff_t>(done);
    for (std::size_t i = 0; i < n; ++i, ++en) {
      if (!*en) continue;
      first = std::min(first, i);
      last = i;
      ++on;
    }
    if (on != 0) {
      std::uint8_t* const page = page_for_write(a / kPageBytes).data() + offset;
      if (on == last - first + 1) {
        std::memcpy(page + first, data.data() + done + first, on);
      } else {
        en = enable.begin() + static_cast<std::ptrdiff_t>(done + first);
        for (std::size_t i = first; i <= last; ++i, ++en)
          if (*en) page[i] = data[done + i];
      }
    }
    done += n;
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
