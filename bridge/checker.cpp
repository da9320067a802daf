#include "bridge/checker.h"

#include <sstream>

namespace mxc {

std::string to_string(const Mismatch& m) {
  std::ostringstream s;
  s << m.where << " " << m.id << " " << m.field << ": expected " << m.expected << ", got " << m.actual << " (at "
    << m.time << " ps)";
  return s.str();
}

}  // namespace mxc
