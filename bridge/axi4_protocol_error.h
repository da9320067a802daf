#pragma once
// The tile did something at its pins that the bridge cannot follow: an AXI4
// master broke a rule the slave transactor checks, asked for a burst the
// slave model does not serve, or a monitor saw an instruction event no
// instruction explains (docs/checkers.md). The run cannot go on meaningfully,
// so the bridge throws one of these, and the co-simulation turns it into the
// run's Mismatch record, failing the run as a checker does (exit status 1,
// failure waveform, reproducing command), instead of an error without one.
#include <stdexcept>
#include <string>
#include <utility>

#include "bridge/checker.h"

namespace mxc {

class RtlPinError : public std::runtime_error {
 public:
  /// `stopped_at` completes the run's error "stopped at ...: <mismatch>", e.g.
  /// "an AXI protocol violation".
  RtlPinError(const std::string& what, Mismatch mismatch, std::string stopped_at)
      : std::runtime_error(what), m_mismatch(std::move(mismatch)), m_stopped_at(std::move(stopped_at)) {}
  const Mismatch& mismatch() const { return m_mismatch; }
  const std::string& stopped_at() const { return m_stopped_at; }

 private:
  Mismatch m_mismatch;
  std::string m_stopped_at;
};

/// From the AXI4 slave transactor (where = "protocol <port>.<channel>",
/// field = the rule). A burst AXI4 allows but this slave model does not
/// serve (FIXED or WRAP, a narrow AxSIZE, an unaligned INCR start, an ID
/// wider than 16 bits) is refused the same way, but named as such: the
/// fault may be the model's limit rather than the master's.
class Axi4ProtocolError : public RtlPinError {
 public:
  enum class Kind { kViolation, kUnsupported };
  Axi4ProtocolError(const std::string& what, Mismatch mismatch, Kind kind = Kind::kViolation)
      : RtlPinError(what, std::move(mismatch),
                    kind == Kind::kViolation ? "an AXI protocol violation"
                                             : "an AXI burst legal in AXI4 but unsupported by this slave model"),
        m_kind(kind) {}
  Kind kind() const { return m_kind; }
  bool unsupported() const { return m_kind == Kind::kUnsupported; }

 private:
  Kind m_kind;
};

}  // namespace mxc
