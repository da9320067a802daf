#pragma once
// Data scoreboard: compares a result matrix the RTL left in memory with the
// one the functional reference computed, element by element, and the rest of
// the design's memory with the reference's image, byte by byte.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "bridge/checker.h"
#include "bridge/memory_monitor.h"
#include "models/core/sparse_memory.h"
#include "models/mxu/isa.h"

namespace mxc {

/// The writes the design made, by address: which one last wrote a byte. A data mismatch is
/// stamped with that write's time, so that a failure waveform ending there shows the write
/// that left the wrong bytes, not the end of the run.
class WriteIndex {
 public:
  struct Write {
    std::uint64_t addr = 0;
    std::uint32_t bytes = 0;
    Time issue = 0;
  };
  /// Adds the writes of `log` (its reads are left out).
  void add(const MemoryLog& log);
  /// The write with the latest issue time whose bytes cover `addr` (the later one in the order
  /// added, among equal times), or null when none does.
  const Write* last_covering(std::uint64_t addr) const;
  /// The SparseMemory pages (their addresses, ascending) the writes touched.
  std::vector<std::uint64_t> pages() const;
  /// The writes touching [addr, addr + bytes), in address order.
  std::vector<Write> overlapping(std::uint64_t addr, std::uint64_t bytes) const;
  bool empty() const { return m_writes.empty(); }

 private:
  void sort() const;
  // By start address once sorted (sort() is lazy: adding is per log, looking up per mismatch).
  mutable std::vector<Write> m_writes;
  mutable std::vector<std::size_t> m_order;  // each write's place in the order added
  mutable bool m_sorted = true;
  std::uint32_t m_longest = 0;
};

class DataScoreboard : public Checker {
 public:
  using TimeOf = std::function<Time(std::uint64_t addr)>;

  std::string name() const override { return "data"; }

  /// Compares rows x cols elements (row-major) of elem_bytes bytes each.
  /// Mismatches name the matrix `what`, the element [row][col], its address
  /// (from addr_of), and both values formatted by format_value.
  void check_matrix(const std::string& what, std::span<const std::uint32_t> actual,
                    std::span<const std::uint32_t> expected, std::uint32_t rows, std::uint32_t cols, DType dtype,
                    std::uint32_t elem_bytes, const std::function<std::uint64_t(std::uint32_t, std::uint32_t)>& addr_of,
                    Time now);
  /// As above, each mismatch stamped with time_of(its element's address).
  void check_matrix(const std::string& what, std::span<const std::uint32_t> actual,
                    std::span<const std::uint32_t> expected, std::uint32_t rows, std::uint32_t cols, DType dtype,
                    std::uint32_t elem_bytes, const std::function<std::uint64_t(std::uint32_t, std::uint32_t)>& addr_of,
                    const TimeOf& time_of);

  /// Compares memory page by page (SparseMemory::kPageBytes, `pages` their addresses): the
  /// design's (read_actual fills a page) against `expected`, leaving out the bytes `skip` holds
  /// nonzero (checked as elements, or written by tiles that carry no data). A run of differing
  /// bytes is one mismatch, "<what> @0x<address>", both sides in hex bytes in address order, at
  /// most 16 bytes each; it is stamped with time_of(its first byte). A page `expected` does not
  /// hold is one the reference never wrote: `writes` that reach into it are each a mismatch
  /// ("written" against "nothing"), whatever they wrote.
  void check_memory(const std::string& what, const SparseMemory& expected, const SparseMemory& skip,
                    std::span<const std::uint64_t> pages,
                    const std::function<void(std::uint64_t, std::span<std::uint8_t>)>& read_actual,
                    const WriteIndex& writes, const TimeOf& time_of);

  std::uint64_t elements_checked() const { return s_checked; }
  /// Memory bytes check_memory compared (the skipped ones not counted).
  std::uint64_t bytes_checked() const { return s_bytes_checked; }

 private:
  std::uint64_t s_checked = 0;
  std::uint64_t s_bytes_checked = 0;
};

/// An element as text: 4 bytes: int32 decimal or fp32 "0x3f800000 (1)";
/// 2 bytes: bf16 "0x3f80 (1)"; 1 byte: int8 decimal.
std::string format_value(std::uint32_t bits, DType dtype, std::uint32_t elem_bytes = 4);

/// Bytes as two hex digits each, in address order, separated by spaces: "de ad 00 ef".
std::string format_bytes(std::span<const std::uint8_t> bytes);

}  // namespace mxc
