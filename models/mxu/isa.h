#pragma once
// The MXU tile instruction set in C++: opcodes and fields come from
// models/mxu/isa.def, the same description the RTL package is generated from.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace mxc {

enum class Opcode : std::uint8_t {
#define MXCOSIM_ISA_OPCODE(name, value, unit, summary) name = value,
#include "models/mxu/isa.def"
};

/// The unit that executes an instruction.
enum class Unit : std::uint8_t { none, dma, compute, ici };

enum class DType : std::uint8_t { kInt8 = 0, kBf16 = 1 };

/// One bit field of the 256-bit instruction word.
struct IsaField {
  std::string_view name;
  unsigned lsb;
  unsigned width;
};

namespace isa {
#define MXCOSIM_ISA_FIELD(name, lsb, width, summary) inline constexpr IsaField name{#name, lsb, width};
#include "models/mxu/isa.def"

inline constexpr unsigned kWordBits = 256;
/// Wait-field value meaning "do not wait for this unit".
inline constexpr std::uint8_t kNoWait = 15;
}  // namespace isa

/// 256-bit instruction word, least significant 64 bits first.
using InstrWord = std::array<std::uint64_t, 4>;

Unit unit_of(Opcode op);
std::string_view to_string(Opcode op);
std::string_view to_string(Unit u);
std::string_view to_string(DType t);
/// Opcode by its name (case-insensitive, e.g. "matmul"); false if unknown.
bool opcode_from_string(std::string_view name, Opcode& op);

}  // namespace mxc
