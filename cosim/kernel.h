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
  /// The same, for a kernel running part of a bigger system (a split run, docs/transport.md):
  /// `global` is its id in the whole system's kernel. Global ids must grow with registration.
  ComponentId add(Component& component, ComponentId global);

  Time now() const { return m_now; }
  std::uint64_t steps() const { return m_steps; }

  /// Why run() returned.
  enum class StopReason { kDone, kIdle, kTimeLimit, kEnd };

  /// Advances components until `done()` is true (checked after every step), every component
  /// is idle, time would pass `limit`, or the next step comes after the end of set_end().
  StopReason run(const std::function<bool()>& done, Time limit = kNever);

  /// Runs no step after step (time, global id) of the global order: run() returns kEnd instead
  /// (the common end of a split run). May be set from within done().
  void set_end(Time time, ComponentId global);
  /// Global id of the component that ran the last step.
  ComponentId last_global() const { return m_last_global; }

  /// Called after each step with the current time, for progress reporting.
  void set_step_observer(std::function<void(Time)> fn) { m_observer = std::move(fn); }

 private:
  std::vector<Component*> m_components;
  std::vector<ComponentId> m_global;
  bool m_has_end = false;
  Time m_end_time = 0;
  ComponentId m_end_id = 0;
  ComponentId m_last_global = 0;
  Time m_now = 0;
  std::uint64_t m_steps = 0;
  std::function<void(Time)> m_observer;
};

std::string to_string(Kernel::StopReason r);

}  // namespace mxc
