#pragma once
// Optional side interface of a fabric for drivers that hold packets at
// sources whose injection queue is full. Offering them again after every
// event (polling) costs a driver round trip per event; instead the driver
// runs events until some full injection queue gets space and offers its
// packets at that time, which is when polling would first have succeeded.
#include "models/core/time.h"

namespace mxc::ici {

class InjectionWatch {
 public:
  virtual ~InjectionWatch() = default;
  /// Runs the events due up to `limit`, but stops after the last event of
  /// the first time at which a chip's full injection queue got space.
  /// Returns that time, or `limit` if no queue got space.
  virtual Time advance_until_space(Time limit) = 0;
};

}  // namespace mxc::ici
