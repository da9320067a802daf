#pragma once
// An append-only sequence stored in fixed chunks of at most 64 KiB. Appending
// never moves or copies what is stored, and memory is taken a chunk at a
// time: a doubling vector copies its contents at each growth and faults in
// fresh pages for about twice its final size, which in a co-simulation's
// per-request logs cost more than writing the entries. A chunk stays below
// the allocator's mmap threshold, so a process running many simulations
// reuses the pages of the last one.
//
// A log with a capacity reserves its chunk table up front and never moves
// it: a reader on another thread may then index elements it has been told
// of (published with release/acquire order by the owner) while the writer
// appends.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace mxc {

template <typename T>
class ChunkedLog {
  static_assert(std::is_trivially_destructible_v<T>, "elements are never destroyed one by one");
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "chunks are plain byte arrays");

 public:
  /// Elements per chunk: a power of two (an index splits by shift and mask), at most 64 KiB.
  static constexpr std::size_t kChunk = sizeof(T) >= 65536 ? 1 : std::bit_floor(65536 / sizeof(T));
  static constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();

  /// Holds at most `capacity` elements (rounded up to whole chunks); unbounded by default.
  explicit ChunkedLog(std::size_t capacity = kUnbounded) : m_capacity(capacity) {
    if (capacity != kUnbounded) m_chunks.reserve((capacity + kChunk - 1) / kChunk);
  }
  ChunkedLog(std::initializer_list<T> items) : ChunkedLog() {
    for (const T& v : items) push_back(v);
  }
  ChunkedLog(const ChunkedLog& other) : ChunkedLog(other.m_capacity) {
    for (const T& v : other) push_back(v);
  }
  ChunkedLog& operator=(const ChunkedLog& other) {
    ChunkedLog copy(other);
    swap(copy);
    return *this;
  }
  ChunkedLog(ChunkedLog&&) noexcept = default;
  ChunkedLog& operator=(ChunkedLog&&) noexcept = default;
  void swap(ChunkedLog& other) noexcept {
    m_chunks.swap(other.m_chunks);
    std::swap(m_n, other.m_n);
    std::swap(m_capacity, other.m_capacity);
  }

  std::size_t size() const { return m_n; }
  bool empty() const { return m_n == 0; }
  /// Whether a capacity was given and is reached.
  bool full() const { return m_n >= m_capacity; }

  /// Appends `v` (the log must not be full).
  T& push_back(const T& v) {
    if (m_n % kChunk == 0) m_chunks.push_back(std::make_unique_for_overwrite<std::byte[]>(kChunk * sizeof(T)));
    T* slot = ::new (m_chunks.back().get() + (m_n % kChunk) * sizeof(T)) T(v);
    ++m_n;
    return *slot;
  }

  T& operator[](std::size_t i) { return element(m_chunks[i / kChunk].get(), i % kChunk); }
  const T& operator[](std::size_t i) const { return element(m_chunks[i / kChunk].get(), i % kChunk); }
  T& back() { return (*this)[m_n - 1]; }
  const T& back() const { return (*this)[m_n - 1]; }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;
    const_iterator() = default;
    const_iterator(const ChunkedLog* log, std::size_t i) : m_log(log), m_i(i) {}
    const T& operator*() const { return (*m_log)[m_i]; }
    const T* operator->() const { return &(*m_log)[m_i]; }
    const_iterator& operator++() {
      ++m_i;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++m_i;
      return old;
    }
    bool operator==(const const_iterator& o) const { return m_i == o.m_i; }

   private:
    const ChunkedLog* m_log = nullptr;
    std::size_t m_i = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, m_n}; }

 private:
  static T& element(std::byte* chunk, std::size_t i) { return *std::launder(reinterpret_cast<T*>(chunk + i * sizeof(T))); }

  std::vector<std::unique_ptr<std::byte[]>> m_chunks;
  std::size_t m_n = 0;
  std::size_t m_capacity = kUnbounded;
};

}  // namespace mxc
