#pragma once
// A clock domain converts between cycles and kernel time. Rising edge n of a
// domain happens at phase + n * period.
#include <cstdint>
#include <string>

#include "models/core/time.h"

namespace mxc {

class ClockDomain {
 public:
  /// period_ps > 0; the first rising edge is at phase_ps.
  ClockDomain(std::string name, Time period_ps, Time phase_ps = 0);

  /// A domain at `mhz` megahertz, period rounded to the nearest picosecond.
  static ClockDomain from_mhz(std::string name, double mhz, Time phase_ps = 0);

  const std::string& name() const { return m_name; }
  Time period() const { return m_period; }
  Time phase() const { return m_phase; }
  double mhz() const { return 1.0e6 / static_cast<double>(m_period); }

  /// Time of rising edge `cycle`.
  Time edge(std::uint64_t cycle) const { return m_phase + cycle * m_period; }
  /// Index of the first rising edge at or after t.
  std::uint64_t cycle_at_or_after(Time t) const;
  /// Time of the first rising edge at or after t.
  Time next_edge(Time t) const { return edge(cycle_at_or_after(t)); }
  /// Number of whole cycles in a span of time, rounded up.
  std::uint64_t cycles_in(Time span) const { return (span + m_period - 1) / m_period; }

 private:
  std::string m_name;
  Time m_period;
  Time m_phase;
};

}  // namespace mxc
