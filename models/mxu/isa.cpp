#include "models/mxu/isa.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace mxc {

Unit unit_of(Opcode op) {
  switch (op) {
#define MXCOSIM_ISA_OPCODE(name, value, unit, summary) \
  case Opcode::name:                                  \
    return Unit::unit;
#include "models/mxu/isa.def"
  }
  return Unit::none;
}

std::string_view to_string(Opcode op) {
  switch (op) {
#define MXCOSIM_ISA_OPCODE(name, value, unit, summary) \
  case Opcode::name:                                  \
    return #name;
#include "models/mxu/isa.def"
  }
  return "UNKNOWN";
}

std::string_view to_string(Unit u) {
  switch (u) {
    case Unit::none: return "none";
    case Unit::dma: return "dma";
    case Unit::compute: return "compute";
    case Unit::ici: return "ici";
  }
  return "?";
}

std::string_view to_string(DType t) { return t == DType::kBf16 ? "bf16" : "int8"; }

bool opcode_from_string(std::string_view name, Opcode& op) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
#define MXCOSIM_ISA_OPCODE(name, value, unit, summary) \
  if (upper == #name) {                               \
    op = Opcode::name;                                \
    return true;                                      \
  }
#include "models/mxu/isa.def"
  return false;
}

}  // namespace mxc
