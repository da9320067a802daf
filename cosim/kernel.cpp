#include "cosim/kernel.h"

#include <stdexcept>

namespace mxc {

Kernel::ComponentId Kernel::add(Component& component) {
  return add(component, static_cast<ComponentId>(m_components.size()));
}

Kernel::ComponentId Kernel::add(Component& component, ComponentId global) {
  if (!m_global.empty() && global <= m_global.back())
    throw std::logic_error("component '" + component.name() + "': global id " + std::to_string(global) +
                           " does not follow " + std::to_string(m_global.back()));
  m_components.push_back(&component);
  m_global.push_back(global);
  return static_cast<ComponentId>(m_components.size() - 1);
}

void Kernel::set_end(Time time, ComponentId global) {
  m_has_end = true;
  m_end_time = time;
  m_end_id = global;
}

Kernel::StopReason Kernel::run(const std::function<bool()>& done, Time limit) {
  while (!done()) {
    // A linear scan: systems hold tens of components, and the scan order is
    // the tie-break (lowest id first at equal times). Selects, not branches:
    // which component comes next follows the simulated timing, which a branch
    // predictor cannot learn (a tile and its memory take turns irregularly).
    std::size_t index = 0;
    Time t = kNever;
    for (std::size_t i = 0; i < m_components.size(); ++i) {
      const Time ct = m_components[i]->next_event_time();
      const bool earlier = ct < t;
      t = earlier ? ct : t;
      index = earlier ? i : index;
    }
    if (m_has_end && (t > m_end_time || (t == m_end_time && m_global[index] > m_end_id))) return StopReason::kEnd;
    if (t == kNever) return StopReason::kIdle;
    Component* const next = m_components[index];
    if (t > limit) return StopReason::kTimeLimit;
    if (t < m_now)
      throw std::logic_error("component '" + next->name() + "' asked to run in the past (" + std::to_string(t) +
                             " ps < now " + std::to_string(m_now) + " ps)");
    m_now = t;
    m_last_global = m_global[index];
    next->advance_to(t);
    ++m_steps;
    if (m_observer) m_observer(m_now);
  }
  return StopReason::kDone;
}

std::string to_string(Kernel::StopReason r) {
  switch (r) {
    case Kernel::StopReason::kDone: return "done";
    case Kernel::StopReason::kIdle: return "idle";
    case Kernel::StopReason::kTimeLimit: return "time limit";
    case Kernel::StopReason::kEnd: return "end";
  }
  return "?";
}

}  // namespace mxc
