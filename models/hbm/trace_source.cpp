#include "models/hbm/trace_source.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace mxc::hbm {

namespace {

constexpr std::size_t kBlock = std::size_t{1} << 18;  // bytes read from the file at a time

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// The next whitespace-separated field of `rest` (empty when none is left).
std::string_view next_field(std::string_view& rest) {
  std::size_t i = 0;
  while (i < rest.size() && is_space(rest[i])) ++i;
  std::size_t j = i;
  while (j < rest.size() && !is_space(rest[j])) ++j;
  const std::string_view field = rest.substr(i, j - i);
  rest.remove_prefix(j);
  return field;
}

/// Digits only (no sign, no prefix, no space), and the value must fit.
enum class Parsed { kOk, kNotNumber, kTooLarge };
Parsed parse_u64(std::string_view s, std::uint64_t& v, int base) {
  if (s.empty()) return Parsed::kNotNumber;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (end != s.data() + s.size()) return Parsed::kNotNumber;
  if (ec == std::errc::result_out_of_range) return Parsed::kTooLarge;
  return ec == std::errc{} ? Parsed::kOk : Parsed::kNotNumber;
}

// A DRAMsim3 command: the names its loader takes for writes, and for reads
// the ones its traces use (its loader reads any other name as a read; here
// another name is an error, more likely a damaged line than a read).
std::optional<bool> dramsim3_write(std::string_view op) {
  if (op == "WRITE" || op == "write" || op == "P_MEM_WR" || op == "BOFF") return true;
  if (op == "READ" || op == "read" || op == "P_MEM_RD" || op == "P_FETCH") return false;
  return std::nullopt;
}

/// A hint for a line that reads as two: a carriage return inside it.
std::string cr_hint(std::string_view line) {
  const auto cr = line.find('\r');
  return cr != std::string_view::npos && cr + 1 < line.size()
             ? " (the line holds a carriage return: are the file's line endings CR only? save it with LF endings)"
             : "";
}

/// A field for an error message: quoted, bytes that are not printable
/// ASCII as \xNN (a binary file given as a trace), long ones cut.
std::string quoted(std::string_view s) {
  constexpr std::size_t kShown = 40;
  std::string q = "'";
  for (const char ch : s.substr(0, kShown)) {
    const auto u = static_cast<unsigned char>(ch);
    if (u >= 0x20 && u < 0x7f) {
      q += ch;
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      q += "\\x";
      q += kHex[u >> 4];
      q += kHex[u & 15];
    }
  }
  return q + (s.size() > kShown ? "'..." : "'");
}

}  // namespace

TraceFormat parse_trace_format(const std::string& s) {
  if (s == "auto") return TraceFormat::kAuto;
  if (s == "dramsim3") return TraceFormat::kDramsim3;
  if (s == "ramulator") return TraceFormat::kRamulator;
  throw std::invalid_argument("unknown trace format '" + s + "' (expected auto, dramsim3 or ramulator)");
}

TraceSource::TraceSource(const std::string& path, TraceFormat fmt, Time cycle_ps, std::uint32_t bytes,
                         std::uint64_t max_requests)
    : m_path(path), m_fmt(fmt), m_cycle_ps(cycle_ps), m_bytes(bytes), m_max(max_requests), m_file(path) {
  if (bytes == 0) throw std::invalid_argument("request size must be > 0");
  m_buf.resize(kBlock + kMaxLine + 1);
}

void TraceSource::fail(const std::string& what) const {
  throw std::runtime_error(m_path + ":" + std::to_string(m_line) + ": " + what);
}

bool TraceSource::read_line(std::string_view& line) {
  for (;;) {
    const char* const data = m_buf.data();
    if (const void* nl = std::memchr(data + m_pos, '\n', m_end - m_pos)) {
      const std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nl) - data) - m_pos;
      // A CRLF line's carriage return is its ending, not one of its characters.
      if (len > kMaxLine && !(len == kMaxLine + 1 && data[m_pos + len - 1] == '\r')) break;
      line = std::string_view(data + m_pos, len);
      m_pos += len + 1;
      return true;
    }
    const std::size_t pending = m_end - m_pos;
    if (pending > kMaxLine + 1 || (pending == kMaxLine + 1 && data[m_end - 1] != '\r')) break;
    if (m_eof) {  // a last line without a newline
      if (!m_read_error.empty()) {  // what was read before the error has been parsed
        ++m_line;
        fail("read error: " + m_read_error);
      }
      if (m_pos == m_end) return false;
      line = std::string_view(data + m_pos, m_end - m_pos);
      m_pos = m_end;
      return true;
    }
    // Keep the partial line (at most kMaxLine bytes and a CR) and read a block after it.
    std::memmove(m_buf.data(), data + m_pos, m_end - m_pos);
    m_end -= m_pos;
    m_pos = 0;
    const std::size_t n = m_file.read(m_buf.data() + m_end, kBlock);
    // The end, or an error (damaged or cut gzip data), reported once the
    // data before it has been parsed.
    if (n == 0) {
      m_eof = true;
      m_read_error = m_file.error();
    }
    m_end += n;
  }
  ++m_line;
  fail("line longer than " + std::to_string(kMaxLine) + " characters");
}

RequestSource::Next TraceSource::next(SourceItem& out) {
  if (!m_stop_at_error || m_count == 0) return read_next(out);
  if (!m_error.empty()) return Next::kEnd;
  try {
    return read_next(out);
  } catch (const std::runtime_error& e) {  // fail()'s: the file's own errors
    m_error = e.what();
    return Next::kEnd;
  }
}

RequestSource::Next TraceSource::read_next(SourceItem& out) {
  if (m_count >= m_max) return Next::kEnd;
  // The address field: hex digits after "0x" or "0X"; bare digits are hex
  // in DRAMsim3's format (it reads the field with std::hex) and decimal in
  // Ramulator's (its loader's std::stoll). `hint` follows a malformed one.
  const auto address = [this](std::string_view field, int bare_base, const char* hint) {
    const bool prefixed = field.size() >= 2 && field[0] == '0' && (field[1] == 'x' || field[1] == 'X');
    const std::string_view digits = prefixed ? field.substr(2) : field;
    const int base = prefixed ? 16 : bare_base;
    std::uint64_t v = 0;
    const Parsed p = parse_u64(digits, v, base);
    if (p == Parsed::kTooLarge) fail("field address: " + quoted(field) + " is past 2^64");
    if (p == Parsed::kNotNumber)
      fail("field address: expected 0x<hex> or " + std::string(bare_base == 16 ? "hex" : "decimal") +
           " digits, got " + quoted(field) + hint);
    return v;
  };
  std::string_view line;
  for (;;) {
    if (!read_line(line)) {
      // A file of no requests is most likely not the trace meant (an
      // empty or truncated file), not a run of none.
      if (m_count == 0)
        throw std::runtime_error(m_path + ": holds no requests (DRAMsim3 '0xADDR READ|WRITE cycle' or Ramulator "
                                 "'LD|ST 0xADDR' lines)");
      return Next::kEnd;
    }
    ++m_line;
    const std::string_view a = next_field(line);
    if (a.empty() || a[0] == '#') continue;
    const std::string_view b = next_field(line), c = next_field(line), extra = next_field(line);
    const std::string_view whole(a.data(), static_cast<std::size_t>(line.data() + line.size() - a.data()));
    TraceFormat f = m_fmt;
    if (f == TraceFormat::kAuto) {
      // The first request line decides; the rest of the file must follow it.
      f = (a == "LD" || a == "ST") ? TraceFormat::kRamulator : TraceFormat::kDramsim3;
      m_fmt = f;
    }
    std::uint64_t addr = 0, cycle = 0;
    if (f == TraceFormat::kRamulator) {
      if (a != "LD" && a != "ST") fail("expected LD or ST, got " + quoted(a) + " (Ramulator format: LD|ST 0xADDR)");
      addr = address(b, 10, "");
      if (!c.empty()) fail("unexpected field " + quoted(c) + " (Ramulator format: LD|ST 0xADDR)" + cr_hint(whole));
      out.write = a == "ST";
      out.at = 0;
    } else {
      addr = address(a, 16, " (DRAMsim3 format: 0xADDR READ|WRITE cycle)");
      const std::optional<bool> is_write = dramsim3_write(b);
      if (!is_write)
        fail("field command: expected READ or WRITE (or read, write, P_MEM_RD, P_FETCH, P_MEM_WR, BOFF), got " +
             quoted(b));
      // Simulated time stays below 2^62 ps (about 53 days), leaving the
      // model room to add latencies without overflowing.
      const std::uint64_t most = (std::uint64_t{1} << 62) / (m_cycle_ps ? m_cycle_ps : 1);
      const Parsed pc = parse_u64(c, cycle, 10);
      if (pc == Parsed::kNotNumber) fail("field cycle: expected a non-negative integer, got " + quoted(c));
      if (pc == Parsed::kTooLarge || cycle > most)
        fail("field cycle: " + std::string(c.substr(0, 40)) + (c.size() > 40 ? "..." : "") + " is too large (at most " +
             std::to_string(most) + ")");
      if (!extra.empty()) fail("unexpected field " + quoted(extra) + cr_hint(whole));

      out.write = *is_write;
      out.at = cycle * m_cycle_ps;
      // Requests leave in file order, so one whose cycle is before the
      // line above's waits for it (as in DRAMsim3); counted for a warning.
      if (cycle < m_last_cycle && m_backwards++ == 0) m_first_backwards_line = m_line;
      m_last_cycle = std::max(m_last_cycle, cycle);
    }
    if (m_bytes - 1 > ~addr)
      fail("field address: " + quoted(f == TraceFormat::kRamulator ? b : a) + " with requests of " +
           std::to_string(m_bytes) + " bytes passes the end of the 64-bit address space");
    out.addr = addr;
    out.bytes = m_bytes;
    ++m_count;
    return Next::kReady;
  }
}

}  // namespace mxc::hbm
