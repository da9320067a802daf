#include "models/mxu/instr_check.h"

#include <stdexcept>
#include <string>

#include "models/core/hex.h"
#include "models/mxu/isa.h"

namespace mxc {

void check_instruction(const Instr& in, const TileGeometry& geo) {
  const auto fail = [](const std::string& field, const std::string& why) {
    throw std::invalid_argument("field '" + field + "': " + why);
  };
  const auto at_least_one = [&](const char* field, std::uint32_t v) {
    if (v == 0) fail(field, "must be >= 1");
  };
  // A count of array rows or columns: 1..limit.
  const auto array = [&](const char* field, std::uint32_t v, std::uint32_t limit, const char* what) {
    at_least_one(field, v);
    if (v > limit) fail(field, std::to_string(v) + " exceeds the " + std::to_string(limit) + "-" + what + " array");
  };
  // A scratchpad row's bytes: 1..sp_row_bytes.
  const std::uint32_t row_bytes = geo.sp_row_bytes();
  const auto bytes = [&](std::uint32_t v) {
    at_least_one("cols", v);
    if (v > row_bytes)
      fail("cols", std::to_string(v) + " exceeds the " + std::to_string(row_bytes) + " bytes of a scratchpad row");
  };
  const auto range = [&](const char* field, std::uint32_t first, std::uint32_t count, std::uint32_t limit,
                         const char* what) {
    if (std::uint64_t{first} + count > limit)
      fail(field, std::to_string(first) + " + rows " + std::to_string(count) + " exceeds the " +
                      std::to_string(limit) + " " + what + " rows");
  };
  const auto sp_range = [&](std::uint32_t first, std::uint32_t count) {
    range("sp_row", first, count, geo.sp_rows, "scratchpad");
  };
  const auto acc_range = [&](std::uint32_t first, std::uint32_t count) {
    range("acc_row", first, count, geo.acc_rows, "accumulator");
  };
  const auto beat_multiple = [&](const char* field, std::uint64_t v) {
    if (v % geo.beat_bytes)
      fail(field, std::to_string(v) + " is not a multiple of the " + std::to_string(geo.beat_bytes) +
                      "-byte AXI beat");
  };
  switch (in.op) {
    case Opcode::DMA_LOAD:
    case Opcode::DMA_STORE:
      at_least_one("rows", in.rows);
      bytes(in.cols);
      beat_multiple("hbm_addr", in.hbm_addr);
      beat_multiple("hbm_stride", in.hbm_stride);
      sp_range(in.sp_row, in.rows);
      // A store's bursts in flight have different AXI IDs (rtl/mxu_dma.sv),
      // and AXI4 orders no writes of different IDs: rows that overlap in HBM
      // would leave whichever the memory happened to write last.
      if (in.op == Opcode::DMA_STORE && in.rows > 1 && in.hbm_stride < in.cols)
        fail("hbm_stride", std::to_string(in.hbm_stride) + " is less than cols " + std::to_string(in.cols) +
                               ": the store's rows overlap in HBM, and AXI4 does not order their writes (bursts in "
                               "flight have different IDs), so which row's bytes remain would depend on the memory");
      {
        // The DMA's addresses are hbm_addr's width: a row ending past them
        // would wrap to low memory (rows >= 1, cols >= 1 here).
        const std::uint64_t end = in.hbm_addr + std::uint64_t{in.rows - 1u} * in.hbm_stride + in.cols;
        const std::uint64_t space = std::uint64_t{1} << isa::HBM_ADDR.width;
        if (end > space)
          fail("hbm_addr", hex(in.hbm_addr) + " + (rows - 1) x hbm_stride + cols ends at " + hex(end) + ", past the " +
                               std::to_string(isa::HBM_ADDR.width) + "-bit HBM address space");
      }
      break;
    case Opcode::LOAD_WEIGHTS:
      array("rows", in.rows, geo.rows, "row");
      array("cols", in.cols, geo.cols, "column");
      sp_range(in.sp_row, in.rows);
      break;
    case Opcode::MATMUL:
      // cols is the K of the vectors: one per array row.
      at_least_one("rows", in.rows);
      array("cols", in.cols, geo.rows, "row");
      sp_range(in.sp_row, in.rows);
      acc_range(in.acc_row, in.rows);
      break;
    case Opcode::OUTPUT:
      at_least_one("rows", in.rows);
      array("cols", in.cols, geo.cols, "column");
      sp_range(in.sp_row, in.rows);
      acc_range(in.acc_row, in.rows);
      break;
    case Opcode::ICI_SEND:
      at_least_one("rows", in.rows);
      bytes(in.cols);
      sp_range(in.sp_row, in.rows);
      // The rows land at remote_row.. of the receiving tile, whose geometry
      // is this one's (a system's tiles are all alike).
      if (in.to_acc) range("remote_row", in.remote_row, in.rows, geo.acc_rows, "accumulator");
      else range("remote_row", in.remote_row, in.rows, geo.sp_rows, "scratchpad");
      break;
    case Opcode::ICI_WAIT:
    case Opcode::NOP:
    case Opcode::FENCE:
      break;
  }
}

void check_destinations(const Program& program, std::uint32_t chips, const ProgramSource& source,
                        std::optional<std::uint32_t> chip) {
  for (std::size_t i = 0; i < program.size(); ++i) {
    const Instr& in = program[i];
    if (in.op != Opcode::ICI_SEND) continue;
    if (in.dst_chip >= chips)
      throw std::invalid_argument(source.where(i) + ": field 'dst_chip': chip " + std::to_string(in.dst_chip) +
                                  " of a " + std::to_string(chips) + "-chip system");
    const std::uint32_t from = in.sp_row, to = in.remote_row;
    if (chip && in.dst_chip != *chip) continue;  // into another chip's scratchpad
    if (!in.to_acc && in.rows > 0 && from < to + in.rows && to < from + in.rows)
      throw std::invalid_argument(
          source.where(i) + ": field 'remote_row': scratchpad rows " + std::to_string(to) + ".." +
          std::to_string(to + in.rows - 1) + " overlap the rows sent, " + std::to_string(from) + ".." +
          std::to_string(from + in.rows - 1) + ": chip " + std::to_string(in.dst_chip) +
          (chip ? " sends them to itself" : " runs this program too and sends them to itself") +
          ", where they overwrite rows it has yet to read (a result that depends on timing)");
  }
}

void check_waits_alone(const Program& program, const ProgramSource& source) {
  std::uint64_t arrived = 0;  // rows sent to the chip (itself) and not yet waited for
  for (std::size_t i = 0; i < program.size(); ++i) {
    const Instr& in = program[i];
    if (in.op == Opcode::ICI_SEND) arrived += in.rows;
    if (in.op != Opcode::ICI_WAIT) continue;
    if (in.rows > arrived)
      throw std::invalid_argument(source.where(i) + ": deadlock: '" + describe(in) + "' waits for " +
                                  std::to_string(in.rows) + " rows and the sends before it deliver " +
                                  std::to_string(arrived) + " (one chip runs the program alone)");
    arrived -= in.rows;
  }
}

}  // namespace mxc
