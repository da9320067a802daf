// Writes the SystemVerilog package of the instruction set (rtl/mxu_isa_pkg.sv)
// from models/mxu/isa.def, so the RTL and the C++ encoder share one source.
// Usage: mxcosim_gen_isa_sv [OUTPUT]   (standard output without OUTPUT)
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {

std::string package_text() {
  std::ostringstream s;
  s << "// Generated from models/mxu/isa.def by mxcosim_gen_isa_sv; do not edit.\n"
       "// The test isa_package_is_generated checks that this file is up to date.\n"
       "// Not every user needs every constant.\n"
       "/* verilator lint_off UNUSEDPARAM */\n"
       "package mxu_isa_pkg;\n"
       "  localparam int INSTR_W = 256;\n"
       "  localparam logic [3:0] WAIT_NONE = 4'd15;\n\n"
       "  // Opcodes\n";
#define MXCOSIM_ISA_OPCODE(name, value, unit, summary) \
  s << "  localparam logic [3:0] OP_" #name " = 4'd" << value << ";  // " #unit ": " summary "\n";
#include "models/mxu/isa.def"
  s << "\n  // Fields: bit position and width in the instruction word\n";
#define MXCOSIM_ISA_FIELD(name, lsb, width, summary) \
  s << "  localparam int F_" #name "_LSB = " << lsb << ";\n  localparam int F_" #name "_W = " << width << ";\n";
#include "models/mxu/isa.def"
  s << "endpackage\n/* verilator lint_on UNUSEDPARAM */\n";
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string text = package_text();
  if (argc < 2) {
    std::cout << text;
    return 0;
  }
  std::ofstream out(argv[1]);
  out << text;
  if (!out) {
    std::cerr << "mxcosim_gen_isa_sv: cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}
