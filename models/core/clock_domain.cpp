#include "models/core/clock_domain.h"

#include <cmath>
#include <stdexcept>

namespace mxc {

ClockDomain::ClockDomain(std::string name, Time period_ps, Time phase_ps)
    : m_name(std::move(name)), m_period(period_ps), m_phase(phase_ps) {
  if (m_period == 0) throw std::invalid_argument("clock domain '" + m_name + "': period must be > 0 ps");
}

ClockDomain ClockDomain::from_mhz(std::string name, double mhz, Time phase_ps) {
  if (!(mhz > 0.0) || mhz > 1.0e6)
    throw std::invalid_argument("clock domain '" + name + "': frequency must be in (0, 1e6] MHz");
  return ClockDomain(std::move(name), static_cast<Time>(std::llround(1.0e6 / mhz)), phase_ps);
}

std::uint64_t ClockDomain::cycle_at_or_after(Time t) const {
  if (t <= m_phase) return 0;
  return (t - m_phase + m_period - 1) / m_period;
}

}  // namespace mxc
