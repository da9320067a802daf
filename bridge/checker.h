#pragma once
// The Checker seam: a checker observes the run and records every
// disagreement as a Mismatch. A run passes only if no checker recorded one.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/core/time.h"

namespace mxc {

/// One disagreement between the RTL and its expectation.
struct Mismatch {
  Time time = 0;          ///< Kernel time of the observation (ps).
  std::string where;      ///< Which checker / unit / memory region.
  std::string id;         ///< Element, transaction or instruction identifier.
  std::string field;      ///< What was compared (value, start cycle, ...).
  std::string expected;
  std::string actual;
};

std::string to_string(const Mismatch& m);

class Checker {
 public:
  virtual ~Checker() = default;
  virtual std::string name() const = 0;

  /// Mismatches recorded so far, earliest first (by time, then as reported): the earliest
  /// max_recorded() are kept, whatever order they were found in. Listed when asked for (after
  /// the run, by the thread that ran the checker): a later report() changes the list.
  const std::vector<Mismatch>& mismatches() const {
    if (!m_listed) {
      std::vector<const Kept*> order;
      for (const Kept& k : m_kept) order.push_back(&k);
      std::sort(order.begin(), order.end(), [](const Kept* a, const Kept* b) { return by_key(*a, *b); });
      m_list.clear();
      for (const Kept* k : order) m_list.push_back(k->m);
      m_listed = true;
    }
    return m_list;
  }
  /// Every mismatch seen, including those not kept.
  std::uint64_t mismatch_count() const { return m_count; }
  bool passed() const { return m_count == 0; }
  static constexpr std::size_t max_recorded() { return 1000; }

 protected:
  /// A checker may find mismatches out of time order (the timing correlator compares
  /// instructions, then memory requests): the failure's first mismatch, where the waveform is
  /// placed, is the earliest in time, so the latest kept gives way to an earlier one. The kept
  /// ones are a heap with the latest on top: a mismatch costs O(log n) whatever the order.
  void report(Mismatch m) {
    const std::pair<Time, std::uint64_t> key{m.time, m_count++};
    if (m_kept.size() == max_recorded()) {
      if (!(key < m_kept.front().key)) return;
      std::pop_heap(m_kept.begin(), m_kept.end(), by_key);
      m_kept.back() = Kept{key, std::move(m)};
    } else {
      m_kept.push_back(Kept{key, std::move(m)});
    }
    std::push_heap(m_kept.begin(), m_kept.end(), by_key);
    m_listed = false;
  }

 private:
  struct Kept {
    std::pair<Time, std::uint64_t> key;  // time, then the order reported
    Mismatch m;
  };
  static bool by_key(const Kept& a, const Kept& b) { return a.key < b.key; }
  std::vector<Kept> m_kept;
  mutable std::vector<Mismatch> m_list;  // m_kept in order, made when asked for
  mutable bool m_listed = true;
  std::uint64_t m_count = 0;
};

}  // namespace mxc
