#pragma once
// The deterministic simulation kernel. Components (models, tiles, fabrics)
// are passive: the kernel repeatedly runs the component whose next event is
// earliest, ties broken by registration order (the component id), never by
// pointer value or wall clock. A component with nothing to do reports kNever
// and costs nothing.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/core/component.h"

namespace mxc {

class Kernel {
 public:
  using ComponentId = std::uint32_t;

  /// Registers a component (not owned); ids are assigned 0, 1, 2, ...
  ComponentId add(Component& component);

  Time now() const { return m_now; }
  std::uint64_t steps() const { return m_steps; }

  /// Why run() returned.
  enum class StopReason { kDone, kIdle, kTimeLimit };

  /// Advances components until `done()` is true (checked after every step),
  /// every component is idle, or time would pass `limit`.
  StopReason run(const std::function<bool()>& done, Time limit = kNever);

  /// Called after each step with the current time, for progress reporting.
  void set_step_observer(std::function<void(Time)> fn) { m_observer = std::move(fn); }

 private:
  std::vector<Component*> m_components;
  Time m_now = 0;
  std::uint64_t m_steps = 0;
  std::function<void(Time)> m_observer;
};

std::string to_string(Kernel::StopReason r);

}  // namespace mxc
