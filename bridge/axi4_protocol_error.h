#pragma once
// An AXI4 master broke a rule the slave transactor checks (docs/checkers.md,
// "AXI protocol"): the run cannot go on meaningfully, so the transactor
// throws this, and the co-simulation turns it into the run's Mismatch record
// (where = "protocol <port>.<channel>", field = the rule) instead of an
// error without one.
#include <stdexcept>

#include "bridge/checker.h"

namespace mxc {

class Axi4ProtocolError : public std::runtime_error {
 public:
  Axi4ProtocolError(const std::string& what, Mismatch mismatch)
      : std::runtime_error(what), m_mismatch(std::move(mismatch)) {}
  const Mismatch& mismatch() const { return m_mismatch; }

 private:
  Mismatch m_mismatch;
};

}  // namespace mxc
