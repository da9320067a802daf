#include "models/mxu/instr.h"

#include <sstream>
#include <stdexcept>

namespace mxc {

namespace {

void put(InstrWord& w, const IsaField& f, std::uint64_t value) {
  if (f.width < 64 && (value >> f.width) != 0)
    throw std::invalid_argument("instruction field " + std::string(f.name) + " = " + std::to_string(value) +
                                " does not fit in " + std::to_string(f.width) + " bits");
  for (unsigned i = 0; i < f.width; ++i) {
    const unsigned bit = f.lsb + i;
    if ((value >> i) & 1) w[bit / 64] |= std::uint64_t{1} << (bit % 64);
  }
}

std::uint64_t get(const InstrWord& w, const IsaField& f) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < f.width; ++i) {
    const unsigned bit = f.lsb + i;
    v |= ((w[bit / 64] >> (bit % 64)) & 1) << i;
  }
  return v;
}

InstrWord used_bits() {
  InstrWord mask{};
#define MXCOSIM_ISA_FIELD(name, lsb, width, summary) put(mask, isa::name, width >= 64 ? ~0ull : (1ull << width) - 1);
#include "models/mxu/isa.def"
  return mask;
}

}  // namespace

InstrWord encode(const Instr& in) {
  InstrWord w{};
  put(w, isa::OPCODE, static_cast<std::uint64_t>(in.op));
  put(w, isa::WAIT_DMA, in.wait_dma);
  put(w, isa::WAIT_COMPUTE, in.wait_compute);
  put(w, isa::WAIT_ICI, in.wait_ici);
  put(w, isa::DTYPE, static_cast<std::uint64_t>(in.dtype));
  put(w, isa::ACCUMULATE, in.accumulate);
  put(w, isa::BUF, in.buf);
  put(w, isa::RELU, in.relu);
  put(w, isa::CONVERT, in.convert);
  put(w, isa::TO_ACC, in.to_acc);
  put(w, isa::SHIFT, in.shift);
  put(w, isa::DST_CHIP, in.dst_chip);
  put(w, isa::ROWS, in.rows);
  put(w, isa::COLS, in.cols);
  put(w, isa::SP_ROW, in.sp_row);
  put(w, isa::ACC_ROW, in.acc_row);
  put(w, isa::REMOTE_ROW, in.remote_row);
  put(w, isa::HBM_ADDR, in.hbm_addr);
  put(w, isa::HBM_STRIDE, in.hbm_stride);
  return w;
}

Instr decode(const InstrWord& w) {
  static const InstrWord kUsed = used_bits();
  for (int i = 0; i < 4; ++i)
    if (w[i] & ~kUsed[i]) throw std::invalid_argument("instruction word has reserved bits set");
  Instr in;
  const auto op = get(w, isa::OPCODE);
  Opcode known;
  bool ok = false;
#define MXCOSIM_ISA_OPCODE(name, value, unit, summary) ok = ok || op == value;
#include "models/mxu/isa.def"
  if (!ok) throw std::invalid_argument("unknown opcode " + std::to_string(op));
  known = static_cast<Opcode>(op);
  in.op = known;
  in.wait_dma = static_cast<std::uint8_t>(get(w, isa::WAIT_DMA));
  in.wait_compute = static_cast<std::uint8_t>(get(w, isa::WAIT_COMPUTE));
  in.wait_ici = static_cast<std::uint8_t>(get(w, isa::WAIT_ICI));
  in.dtype = static_cast<DType>(get(w, isa::DTYPE));
  in.accumulate = get(w, isa::ACCUMULATE);
  in.buf = static_cast<std::uint8_t>(get(w, isa::BUF));
  in.relu = get(w, isa::RELU);
  in.convert = get(w, isa::CONVERT);
  in.to_acc = get(w, isa::TO_ACC);
  in.shift = static_cast<std::uint8_t>(get(w, isa::SHIFT));
  in.dst_chip = static_cast<std::uint8_t>(get(w, isa::DST_CHIP));
  in.rows = static_cast<std::uint16_t>(get(w, isa::ROWS));
  in.cols = static_cast<std::uint16_t>(get(w, isa::COLS));
  in.sp_row = static_cast<std::uint16_t>(get(w, isa::SP_ROW));
  in.acc_row = static_cast<std::uint16_t>(get(w, isa::ACC_ROW));
  in.remote_row = static_cast<std::uint16_t>(get(w, isa::REMOTE_ROW));
  in.hbm_addr = get(w, isa::HBM_ADDR);
  in.hbm_stride = static_cast<std::uint32_t>(get(w, isa::HBM_STRIDE));
  return in;
}

std::string describe(const Instr& in) {
  std::ostringstream s;
  std::string name(to_string(in.op));
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  s << name;
  const Opcode op = in.op;
  const bool dma = op == Opcode::DMA_LOAD || op == Opcode::DMA_STORE;
  const bool compute = unit_of(op) == Unit::compute;
  // The fields an opcode uses are always printed; any other field only when
  // it is not zero, so every Instr has a text form that parses back to it.
  if ((op != Opcode::NOP && op != Opcode::FENCE) || in.rows) s << " rows=" << in.rows;
  const bool rows_cols = dma || compute || op == Opcode::ICI_SEND;
  if (rows_cols || in.cols) s << " cols=" << in.cols;
  if (rows_cols || in.sp_row) s << " sp_row=" << in.sp_row;
  if (op == Opcode::MATMUL || op == Opcode::OUTPUT || in.acc_row) s << " acc_row=" << in.acc_row;
  if (dma || in.hbm_addr) s << " hbm_addr=0x" << std::hex << in.hbm_addr << std::dec;
  if (dma || in.hbm_stride) s << " hbm_stride=" << in.hbm_stride;
  if (op == Opcode::ICI_SEND || in.dst_chip) s << " dst_chip=" << int(in.dst_chip);
  if (op == Opcode::ICI_SEND || in.remote_row) s << " remote_row=" << in.remote_row;
  if (compute || in.to_acc || in.dtype != DType::kInt8) s << " dtype=" << to_string(in.dtype);
  if (op == Opcode::LOAD_WEIGHTS || op == Opcode::MATMUL || in.buf) s << " buf=" << int(in.buf);
  if (in.accumulate) s << " accumulate";
  if (in.convert) s << " convert";
  if (in.relu) s << " relu";
  if (in.to_acc) s << " to_acc";
  if (in.shift) s << " shift=" << int(in.shift);
  if (in.wait_dma != isa::kNoWait) s << " wait_dma=" << int(in.wait_dma);
  if (in.wait_compute != isa::kNoWait) s << " wait_compute=" << int(in.wait_compute);
  if (in.wait_ici != isa::kNoWait) s << " wait_ici=" << int(in.wait_ici);
  return s.str();
}

ProgramTraffic program_traffic(const Program& program) {
  ProgramTraffic t;
  for (const Instr& in : program) {
    const std::uint64_t bytes = std::uint64_t{in.rows} * in.cols;
    if (unit_of(in.op) == Unit::dma) t.dma_bytes += bytes;
    else if (in.op == Opcode::ICI_SEND) t.ici_bytes += bytes;
  }
  return t;
}

}  // namespace mxc
