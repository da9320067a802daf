#include "models/mxu/assembler.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "models/core/input_limits.h"
#include "models/mxu/instr_check.h"

namespace mxc {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

/// Decimal or 0x hex, no sign, no suffix; must fit in `bits`.
std::uint64_t parse_number(const std::string& text, const std::string& field, unsigned bits, const std::string& where) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::size_t start = hex ? 2 : 0;
  if (text.size() == start) fail(where, "field '" + field + "': missing value");
  std::uint64_t v = 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (hex && c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a' + 10);
    } else {
      fail(where, "field '" + field + "': bad number '" + text + "'");
    }
    const unsigned base = hex ? 16 : 10;
    if (v > (~std::uint64_t{0} - d) / base) fail(where, "field '" + field + "': value '" + text + "' is too large");
    v = v * base + d;
  }
  if (bits < 64 && (v >> bits) != 0)
    fail(where, "field '" + field + "': value " + text + " does not fit in " + std::to_string(bits) + " bits");
  return v;
}

}  // namespace

bool parse_instruction(const std::string& raw, const std::string& where, Instr& out) {
  std::string line = raw.substr(0, raw.find('#'));
  std::istringstream words(line);
  std::string word;
  if (!(words >> word)) return false;
  Instr in;
  if (!opcode_from_string(word, in.op)) fail(where, "unknown opcode '" + word + "'");
  std::vector<std::string> seen;
  while (words >> word) {
    const std::size_t eq = word.find('=');
    const std::string key = lower(word.substr(0, eq));
    const bool has_value = eq != std::string::npos;
    const std::string value = has_value ? word.substr(eq + 1) : std::string();
    for (const auto& s : seen)
      if (s == key) fail(where, "field '" + key + "' given twice");
    seen.push_back(key);
    const auto num = [&](const IsaField& f) {
      if (!has_value) fail(where, "field '" + key + "' needs a value (" + key + "=N)");
      return parse_number(value, key, f.width, where);
    };
    // A flag is written bare ("relu") or as flag=0 / flag=1.
    const auto flag = [&]() {
      if (!has_value) return true;
      if (value == "0") return false;
      if (value == "1") return true;
      fail(where, "field '" + key + "': expected 0 or 1, not '" + value + "'");
    };
    if (key == "rows") in.rows = static_cast<std::uint16_t>(num(isa::ROWS));
    else if (key == "cols") in.cols = static_cast<std::uint16_t>(num(isa::COLS));
    else if (key == "sp_row") in.sp_row = static_cast<std::uint16_t>(num(isa::SP_ROW));
    else if (key == "acc_row") in.acc_row = static_cast<std::uint16_t>(num(isa::ACC_ROW));
    else if (key == "remote_row") in.remote_row = static_cast<std::uint16_t>(num(isa::REMOTE_ROW));
    else if (key == "hbm_addr") in.hbm_addr = num(isa::HBM_ADDR);
    else if (key == "hbm_stride") in.hbm_stride = static_cast<std::uint32_t>(num(isa::HBM_STRIDE));
    else if (key == "dst_chip") in.dst_chip = static_cast<std::uint8_t>(num(isa::DST_CHIP));
    else if (key == "buf") in.buf = static_cast<std::uint8_t>(num(isa::BUF));
    else if (key == "shift") in.shift = static_cast<std::uint8_t>(num(isa::SHIFT));
    else if (key == "wait_dma") in.wait_dma = static_cast<std::uint8_t>(num(isa::WAIT_DMA));
    else if (key == "wait_compute") in.wait_compute = static_cast<std::uint8_t>(num(isa::WAIT_COMPUTE));
    else if (key == "wait_ici") in.wait_ici = static_cast<std::uint8_t>(num(isa::WAIT_ICI));
    else if (key == "accumulate") in.accumulate = flag();
    else if (key == "relu") in.relu = flag();
    else if (key == "convert") in.convert = flag();
    else if (key == "to_acc") in.to_acc = flag();
    else if (key == "dtype") {
      const std::string v = lower(value);
      if (v == "int8") in.dtype = DType::kInt8;
      else if (v == "bf16") in.dtype = DType::kBf16;
      else fail(where, "field 'dtype': expected int8 or bf16, not '" + value + "'");
    } else {
      fail(where, "unknown field '" + key + "'");
    }
  }
  out = in;
  return true;
}

namespace {

/// The next line of `in` without its newline into `line`; false at the end.
bool read_line(std::istream& in, std::string& line, const std::string& where) {
  line.clear();
  for (char c; in.get(c);) {
    if (c == '\n') return true;
    // A file that is no program (data without newlines) fails at its first
    // line. A CRLF line's carriage return is its line ending, not one of
    // its characters (one past the limit is allowed for it).
    if (line.size() == kMaxInputLine && !(c == '\r' && in.peek() == '\n'))
      fail(where, "line longer than " + std::to_string(kMaxInputLine) + " characters");
    // Said here: a NUL inside a message would cut it short where it is printed.
    if (c == '\0') fail(where, "a NUL byte in column " + std::to_string(line.size() + 1) + " (a binary file?)");
    // A lone carriage return read as a space would join two lines into one instruction.
    if (c == '\r' && in.peek() != '\n' && in.peek() != std::char_traits<char>::eof())
      fail(where, "a carriage return inside the line, in column " + std::to_string(line.size() + 1) +
                      " (lines ending in CR alone? end them in LF or CRLF)");
    line.push_back(c);
  }
  return !line.empty();  // a last line without a newline
}

/// parse_program, and with `geo` each instruction checked against that tile;
/// with `source`, each instruction's line.
Program parse(std::istream& in, const std::string& filename, const TileGeometry* geo, ProgramSource* source) {
  Program program;
  if (source) *source = ProgramSource{filename, {}};
  std::string line;
  for (std::size_t n = 1;; ++n) {
    const std::string where = filename + ":" + std::to_string(n);
    if (!read_line(in, line, where)) break;
    // A byte-order mark some editors put first is no part of the opcode.
    if (n == 1 && line.rfind("\xef\xbb\xbf", 0) == 0) line.erase(0, 3);
    Instr instr;
    if (!parse_instruction(line, where, instr)) continue;
    if (geo) {
      try {
        check_instruction(instr, *geo);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(where + ": " + e.what());
      }
    }
    program.push_back(instr);
    if (source) source->lines.push_back(static_cast<std::uint32_t>(n));
  }
  if (in.bad()) throw std::runtime_error(filename + ": read error");
  if (geo && program.empty()) throw std::invalid_argument(filename + ": no instructions");
  return program;
}

Program load(const std::string& path, const TileGeometry* geo, ProgramSource* source) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw std::runtime_error(path + ": is a directory, not a program file");
  std::ifstream f(path);
  if (!f) throw std::runtime_error((path.empty() ? std::string("(empty file name)") : path) +
                                   ": cannot open program file");
  return parse(f, path, geo, source);
}

}  // namespace

Program parse_program(std::istream& in, const std::string& filename) {
  return parse(in, filename, nullptr, nullptr);
}

Program load_program_file(const std::string& path) { return load(path, nullptr, nullptr); }

Program load_program_file(const std::string& path, const TileGeometry& geo, ProgramSource* source) {
  return load(path, &geo, source);
}

Program load_program_file(const std::string& path, ProgramSource& source) { return load(path, nullptr, &source); }

void check_program(const Program& program, const TileGeometry& geo, const ProgramSource& source) {
  for (std::size_t i = 0; i < program.size(); ++i) {
    try {
      check_instruction(program[i], geo);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(source.where(i) + ": " + e.what());
    }
  }
  if (program.empty()) throw std::invalid_argument(source.path + ": no instructions");
}

std::string format_program(const Program& program) {
  std::string text;
  for (const Instr& in : program) text += describe(in) + "\n";
  return text;
}

}  // namespace mxc
