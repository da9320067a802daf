#include "cosim/kernel.h"

#include <stdexcept>

namespace mxc {

Kernel::ComponentId Kernel::add(Component& component) {
  m_components.push_back(&component);
  return static_cast<ComponentId>(m_components.size() - 1);
}

Kernel::StopReason Kernel::run(const std::function<bool()>& done, Time limit) {
  while (!done()) {
    // A linear scan: systems hold tens of components, and the scan order is
    // the tie-break (lowest id first at equal times).
    Component* next = nullptr;
    Time t = kNever;
    for (Component* c : m_components) {
      const Time ct = c->next_event_time();
      if (ct < t) {
        t = ct;
        next = c;
      }
    }
    if (!next) return StopReason::kIdle;
    if (t > limit) return StopReason::kTimeLimit;
    if (t < m_now)
      throw std::logic_error("component '" + next->name() + "' asked to run in the past (" + std::to_string(t) +
                             " ps < now " + std::to_string(m_now) + " ps)");
    m_now = t;
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
  }
  return "?";
}

}  // namespace mxc
