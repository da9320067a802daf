#pragma once
// One tile instruction with its fields unpacked; a program is a list of
// them. Both tiles (RtlTile, ModelTile) execute the same list; encode() gives
// the word the RTL's command port receives.
#include <cstdint>
#include <string>
#include <vector>

#include "models/mxu/isa.h"

namespace mxc {

struct Instr {
  Opcode op = Opcode::NOP;
  std::uint8_t wait_dma = isa::kNoWait;      ///< Dispatch when <= this many DMA instructions are outstanding.
  std::uint8_t wait_compute = isa::kNoWait;
  std::uint8_t wait_ici = isa::kNoWait;
  DType dtype = DType::kInt8;
  bool accumulate = false;
  std::uint8_t buf = 0;
  bool relu = false;
  bool convert = false;
  bool to_acc = false;
  std::uint8_t shift = 0;
  std::uint8_t dst_chip = 0;
  std::uint16_t rows = 0;
  std::uint16_t cols = 0;
  std::uint16_t sp_row = 0;
  std::uint16_t acc_row = 0;
  std::uint16_t remote_row = 0;
  std::uint64_t hbm_addr = 0;
  std::uint32_t hbm_stride = 0;

  bool operator==(const Instr&) const = default;
};

using Program = std::vector<Instr>;

/// Packs the fields; throws std::invalid_argument naming a field whose value does not fit.
InstrWord encode(const Instr& in);
/// Unpacks a word; throws std::invalid_argument on an unknown opcode or a set reserved bit.
Instr decode(const InstrWord& word);

/// The instruction in assembly syntax (see docs/isa.md), e.g.
/// "matmul rows=16 cols=4 sp_row=0 acc_row=0 buf=1 accumulate wait_dma=0".
std::string describe(const Instr& in);

/// The bytes a program's DMA instructions move and its ICI_SEND rows carry
/// (rows x cols each): all it can ask of its memory and of the fabric. The
/// hang watchdogs count memory answers and ICI bytes as progress up to these,
/// so a long transfer is not a hang while one that never ends still is.
struct ProgramTraffic {
  std::uint64_t dma_bytes = 0, ici_bytes = 0;
  ProgramTraffic& operator+=(const ProgramTraffic& o) {
    dma_bytes += o.dma_bytes;
    ici_bytes += o.ici_bytes;
    return *this;
  }
};
ProgramTraffic program_traffic(const Program& program);

/// When an instruction ran on a tile, in tile cycles: dispatched at `start`,
/// completed at `end` (the cycle its unit reported it done).
struct InstrEvent {
  std::size_t index = 0;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  /// Whether it was dispatched and whether it completed: a run stopped early
  /// (a hang) leaves instructions without. True for an event given whole;
  /// a tile loading a program sets both false and each as it happens.
  bool dispatched = true;
  bool done = true;
};

}  // namespace mxc
