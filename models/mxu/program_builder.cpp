#include "models/mxu/program_builder.h"

#include <algorithm>

#include "models/mxu/unit_queues.h"

namespace mxc {

ProgramBuilder::Ref ProgramBuilder::emit(Instr in, std::initializer_list<Ref> deps) {
  return emit(std::move(in), std::vector<Ref>(deps));
}

ProgramBuilder::Ref ProgramBuilder::emit(Instr in, const std::vector<Ref>& deps) {
  std::uint64_t lag[4] = {isa::kNoWait, isa::kNoWait, isa::kNoWait, isa::kNoWait};
  const Unit unit = unit_of(in.op);
  for (const Ref& d : deps) {
    if (d.unit == Unit::none) continue;  // NOP and FENCE complete at dispatch
    const auto u = static_cast<int>(d.unit);
    const std::uint64_t after = m_emitted[u] - 1 - d.seq;
    if (after < max_outstanding_at_dispatch(unit, d.unit)) lag[u] = std::min(lag[u], after);
  }
  in.wait_dma = static_cast<std::uint8_t>(lag[static_cast<int>(Unit::dma)]);
  in.wait_compute = static_cast<std::uint8_t>(lag[static_cast<int>(Unit::compute)]);
  in.wait_ici = static_cast<std::uint8_t>(lag[static_cast<int>(Unit::ici)]);
  m_program.push_back(in);
  return Ref{unit, m_emitted[static_cast<int>(unit)]++};
}

}  // namespace mxc
