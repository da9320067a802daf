#pragma once
// The one contract between a model and whatever drives time (the cosim
// kernel, or another simulator using the models as a library). Components are
// passive: the driver asks when they next need to run and advances them
// there, so a sleeping component (kNever) costs nothing.
#include <string>

#include "models/core/time.h"

namespace mxc {

class Component {
 public:
  virtual ~Component() = default;

  /// Short unique name used in messages, traces and statistics.
  virtual std::string name() const = 0;

  /// Earliest time >= the last advance at which this component has work;
  /// kNever while idle. Must change only through advance_to() or an input
  /// call (send, inject, ...), so the driver may re-query after those.
  virtual Time next_event_time() const = 0;

  /// Perform all work due at `now` (never earlier than a previous call).
  virtual void advance_to(Time now) = 0;
};

}  // namespace mxc
