#pragma once
// The Checker seam: a checker observes the run and records every
// disagreement as a Mismatch. A run passes only if no checker recorded one.
#include <algorithm>
#include <cstdint>
#include <string>
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
  /// max_recorded() are kept, whatever order they were found in.
  const std::vector<Mismatch>& mismatches() const { return m_mismatches; }
  /// Every mismatch seen, including those not kept.
  std::uint64_t mismatch_count() const { return m_count; }
  bool passed() const { return m_count == 0; }
  static constexpr std::size_t max_recorded() { return 1000; }

 protected:
  /// A checker may find mismatches out of time order (the timing correlator compares
  /// instructions, then memory requests): the failure's first mismatch, where the waveform is
  /// placed, is the earliest in time, so the latest kept gives way to an earlier one.
  void report(Mismatch m) {
    ++m_count;
    if (m_mismatches.size() == max_recorded() && m.time >= m_mismatches.back().time) return;
    const auto at = std::upper_bound(m_mismatches.begin(), m_mismatches.end(), m.time,
                                     [](Time t, const Mismatch& k) { return t < k.time; });
    m_mismatches.insert(at, std::move(m));
    if (m_mismatches.size() > max_recorded()) m_mismatches.pop_back();
  }

 private:
  std::vector<Mismatch> m_mismatches;
  std::uint64_t m_count = 0;
};

}  // namespace mxc
