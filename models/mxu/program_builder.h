#pragma once
// Builds a tile program whose wait fields encode its dependencies. Each
// emitted instruction gets a Ref; an instruction emitted with deps waits at
// dispatch until every instruction it depends on has completed. Units finish
// their instructions in order, so "X completed" is "at most L instructions of
// X's unit outstanding", L = how many of that unit were emitted after X. A
// dependency with max_outstanding_at_dispatch (models/mxu/unit_queues.h) or
// more emitted after it is complete by construction and needs no wait.
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "models/mxu/instr.h"

namespace mxc {

class ProgramBuilder {
 public:
  struct Ref {
    Unit unit = Unit::none;
    std::uint64_t seq = 0;  ///< Index among the instructions of its unit.
  };

  /// Appends `in` (its wait fields are computed, not taken from `in`).
  Ref emit(Instr in, std::initializer_list<Ref> deps = {});
  Ref emit(Instr in, const std::vector<Ref>& deps);

  const Program& program() const { return m_program; }
  Program take() { return std::move(m_program); }

 private:
  Program m_program;
  std::uint64_t m_emitted[4] = {0, 0, 0, 0};  // per Unit
};

}  // namespace mxc
