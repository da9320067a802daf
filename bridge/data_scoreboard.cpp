#include "bridge/data_scoreboard.h"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "models/core/hex.h"

namespace mxc {

void WriteIndex::add(const MemoryLog& log) {
  for (const MemoryLogEntry& e : log) {
    if (!e.write || e.bytes == 0) continue;
    m_order.push_back(m_writes.size());
    m_writes.push_back({e.addr, e.bytes, e.issue});
    m_longest = std::max(m_longest, e.bytes);
    m_sorted = false;
  }
}

void WriteIndex::sort() const {
  if (m_sorted) return;
  // By address, each write keeping its place in the order added (m_order: the tie-break of
  // last_covering); stable, so equal addresses stay in that order too.
  std::vector<std::size_t> idx(m_writes.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return m_writes[a].addr < m_writes[b].addr; });
  std::vector<Write> writes(idx.size());
  std::vector<std::size_t> order(idx.size());
  for (std::size_t i = 0; i < idx.size(); ++i) {
    writes[i] = m_writes[idx[i]];
    order[i] = m_order[idx[i]];
  }
  m_writes = std::move(writes);
  m_order = std::move(order);
  m_sorted = true;
}

const WriteIndex::Write* WriteIndex::last_covering(std::uint64_t addr) const {
  sort();
  // Writes that cover addr start in (addr - longest, addr]: walk back from the last start at or
  // below addr.
  auto it = std::upper_bound(m_writes.begin(), m_writes.end(), addr,
                             [](std::uint64_t a, const Write& w) { return a < w.addr; });
  const Write* best = nullptr;
  std::size_t best_order = 0;
  while (it != m_writes.begin()) {
    --it;
    if (addr - it->addr >= m_longest) break;
    if (addr - it->addr >= it->bytes) continue;
    const std::size_t order = m_order[static_cast<std::size_t>(it - m_writes.begin())];
    if (!best || it->issue > best->issue || (it->issue == best->issue && order > best_order)) {
      best = &*it;
      best_order = order;
    }
  }
  return best;
}

std::vector<std::uint64_t> WriteIndex::pages() const {
  sort();
  constexpr std::uint64_t kPage = SparseMemory::kPageBytes;
  std::vector<std::uint64_t> out;
  for (const Write& w : m_writes)
    for (std::uint64_t p = w.addr / kPage; p <= (w.addr + w.bytes - 1) / kPage; ++p)
      if (out.empty() || out.back() < p * kPage) out.push_back(p * kPage);
  return out;
}

std::vector<WriteIndex::Write> WriteIndex::overlapping(std::uint64_t addr, std::uint64_t bytes) const {
  sort();
  const std::uint64_t from = addr > m_longest ? addr - m_longest : 0;
  auto it = std::lower_bound(m_writes.begin(), m_writes.end(), from,
                             [](const Write& w, std::uint64_t a) { return w.addr < a; });
  std::vector<Write> out;
  for (; it != m_writes.end() && it->addr < addr + bytes; ++it)
    if (it->addr + it->bytes > addr) out.push_back(*it);
  return out;
}

std::string format_bytes(std::span<const std::uint8_t> bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (const std::uint8_t b : bytes) {
    if (!s.empty()) s += ' ';
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

std::string format_value(std::uint32_t bits, DType dtype, std::uint32_t elem_bytes) {
  if (elem_bytes == 1) return std::to_string(static_cast<std::int8_t>(bits));
  if (elem_bytes == 2) {
    std::ostringstream s;
    const std::uint32_t widened = (bits & 0xffff) << 16;
    float f;
    std::memcpy(&f, &widened, 4);
    s << "0x" << std::hex << std::setw(4) << std::setfill('0') << (bits & 0xffff) << std::dec << " (" << f << ")";
    return s.str();
  }
  if (dtype == DType::kInt8) return std::to_string(static_cast<std::int32_t>(bits));
  float f;
  std::memcpy(&f, &bits, 4);
  std::ostringstream s;
  s << "0x" << std::hex << std::setw(8) << std::setfill('0') << bits << std::dec << " (" << std::setprecision(9) << f
    << ")";
  return s.str();
}

void DataScoreboard::check_matrix(const std::string& what, std::span<const std::uint32_t> actual,
                                  std::span<const std::uint32_t> expected, std::uint32_t rows, std::uint32_t cols,
                                  DType dtype, std::uint32_t elem_bytes,
                                  const std::function<std::uint64_t(std::uint32_t, std::uint32_t)>& addr_of, Time now) {
  check_matrix(what, actual, expected, rows, cols, dtype, elem_bytes, addr_of, [now](std::uint64_t) { return now; });
}

void DataScoreboard::check_matrix(const std::string& what, std::span<const std::uint32_t> actual,
                                  std::span<const std::uint32_t> expected, std::uint32_t rows, std::uint32_t cols,
                                  DType dtype, std::uint32_t elem_bytes,
                                  const std::function<std::uint64_t(std::uint32_t, std::uint32_t)>& addr_of,
                                  const TimeOf& time_of) {
  if (actual.size() != std::size_t{rows} * cols || expected.size() != actual.size())
    throw std::invalid_argument("data scoreboard: " + what + " sizes disagree with rows x cols");
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < cols; ++c) {
      const std::size_t i = std::size_t{r} * cols + c;
      ++s_checked;
      if (actual[i] == expected[i]) continue;
      const std::uint64_t addr = addr_of(r, c);
      std::ostringstream id;
      id << what << "[" << r << "][" << c << "] @0x" << std::hex << addr;
      static const char* kField[2][5] = {{"", "int8 value", "bf16 value", "", "int32 value"},
                                         {"", "int8 value", "bf16 value", "", "fp32 value"}};
      report({time_of(addr), "data scoreboard", id.str(),
              kField[dtype == DType::kBf16][elem_bytes > 4 ? 4 : elem_bytes],
              format_value(expected[i], dtype, elem_bytes), format_value(actual[i], dtype, elem_bytes)});
    }
}

void DataScoreboard::check_memory(const std::string& what, const SparseMemory& expected, const SparseMemory& skip,
                                  std::span<const std::uint64_t> pages,
                                  const std::function<void(std::uint64_t, std::span<std::uint8_t>)>& read_actual,
                                  const WriteIndex& writes, const TimeOf& time_of) {
  constexpr std::size_t kPage = SparseMemory::kPageBytes;
  constexpr std::size_t kRun = 16;  // bytes shown in one mismatch at most
  std::vector<std::uint64_t> held;
  expected.for_each_page([&](std::uint64_t base, std::span<const std::uint8_t>) { held.push_back(base); });
  std::vector<std::uint8_t> got(kPage), want(kPage), skipped(kPage);
  // Writes into pages the reference never wrote, each reported once (one may span two pages).
  std::set<std::tuple<std::uint64_t, std::uint32_t, Time>> stray;
  for (const std::uint64_t base : pages) {
    read_actual(base, got);
    if (!std::binary_search(held.begin(), held.end(), base)) {
      // Nothing the reference wrote: bytes that happen to match (zeros) do not make such a write right.
      for (const WriteIndex::Write& w : writes.overlapping(base, kPage)) {
        if (!stray.emplace(w.addr, w.bytes, w.issue).second) continue;
        // The memory is read once the run has ended: a later write to the same place may have
        // replaced what this one wrote, so the bytes are shown as what is there now.
        std::vector<std::uint8_t> bytes(std::min<std::size_t>(w.bytes, kRun));
        read_actual(w.addr, bytes);
        report({w.issue, "data scoreboard", what + " @" + hex(w.addr), "write", "none (the reference writes nothing in "
                "page " + hex(base) + ")", std::to_string(w.bytes) + " bytes written; now at " + hex(w.addr) + ": " +
                format_bytes(bytes) + (w.bytes > kRun ? " ..." : "")});
      }
      continue;
    }
    expected.read(base, want);
    skip.read(base, skipped);
    // Pages compare whole: the usual page matches, and a byte by byte walk is left to those that do not.
    std::size_t compared = kPage;
    for (std::size_t i = 0; i < kPage; ++i) compared -= skipped[i] != 0;
    s_bytes_checked += compared;
    if (std::memcmp(got.data(), want.data(), kPage) == 0) continue;
    for (std::size_t i = 0; i < kPage;) {
      if (skipped[i] || got[i] == want[i]) {
        ++i;
        continue;
      }
      std::size_t end = i + 1;
      while (end < kPage && end - i < kRun && !skipped[end] && got[end] != want[end]) ++end;
      const std::span<const std::uint8_t> e(want.data() + i, end - i), a(got.data() + i, end - i);
      report({time_of(base + i), "data scoreboard", what + " @" + hex(base + i),
              "bytes (hex)", format_bytes(e), format_bytes(a)});
      i = end;
    }
  }
}

}  // namespace mxc
