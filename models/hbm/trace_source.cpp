#include "models/hbm/trace_source.h"

#include <zlib.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace mxc::hbm {

namespace {
bool parse_u64(const std::string& s, std::uint64_t& v, int base) {
  if (s.empty()) return false;
  try {
    std::size_t used = 0;
    v = std::stoull(s, &used, base);
    return used == s.size() && s[0] != '-';
  } catch (const std::exception&) {
    return false;
  }
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
    : m_path(path), m_fmt(fmt), m_cycle_ps(cycle_ps), m_bytes(bytes), m_max(max_requests) {
  if (bytes == 0) throw std::invalid_argument("request size must be > 0");
  m_gz = gzopen(path.c_str(), "rb");
  if (!m_gz) throw std::runtime_error(path + ": cannot open trace");
}

TraceSource::~TraceSource() {
  if (m_gz) gzclose(static_cast<gzFile>(m_gz));
}

void TraceSource::fail(const std::string& what) const {
  throw std::runtime_error(m_path + ":" + std::to_string(m_line) + ": " + what);
}

RequestSource::Next TraceSource::next(SourceItem& out) {
  if (m_count >= m_max) return Next::kEnd;
  char buf[4096];
  for (;;) {
    if (!gzgets(static_cast<gzFile>(m_gz), buf, sizeof buf)) {
      int err = 0;
      const char* msg = gzerror(static_cast<gzFile>(m_gz), &err);
      if (err != Z_OK && err != Z_STREAM_END) fail(std::string("read error: ") + msg);
      return Next::kEnd;
    }
    ++m_line;
    const std::size_t len = std::strlen(buf);
    if (len == sizeof buf - 1 && buf[len - 1] != '\n') fail("line longer than 4095 characters");
    std::istringstream in(buf);
    std::string a, b, c, extra;
    in >> a;
    if (a.empty() || a[0] == '#') continue;
    in >> b >> c >> extra;
    TraceFormat f = m_fmt;
    if (f == TraceFormat::kAuto) {
      // The first request line decides; the rest of the file must follow it.
      f = (a == "LD" || a == "ST") ? TraceFormat::kRamulator : TraceFormat::kDramsim3;
      m_fmt = f;
    }
    std::uint64_t addr = 0, cycle = 0;
    if (f == TraceFormat::kRamulator) {
      if (a != "LD" && a != "ST") fail("expected LD or ST, got '" + a + "' (Ramulator format: LD|ST 0xADDR)");
      if (b.size() < 3 || b.compare(0, 2, "0x") != 0 || !parse_u64(b.substr(2), addr, 16))
        fail("field address: expected 0x<hex>, got '" + b + "'");
      if (!c.empty()) fail("unexpected field '" + c + "' (Ramulator format: LD|ST 0xADDR)");
      out.write = a == "ST";
      out.at = 0;
    } else {
      if (a.size() < 3 || a.compare(0, 2, "0x") != 0 || !parse_u64(a.substr(2), addr, 16))
        fail("field address: expected 0x<hex>, got '" + a + "' (DRAMsim3 format: 0xADDR READ|WRITE cycle)");
      if (b != "READ" && b != "WRITE") fail("field command: expected READ or WRITE, got '" + b + "'");
      if (!parse_u64(c, cycle, 10)) fail("field cycle: expected a non-negative integer, got '" + c + "'");
      if (!extra.empty()) fail("unexpected field '" + extra + "'");
      if (cycle > UINT64_MAX / (m_cycle_ps ? m_cycle_ps : 1)) fail("field cycle: too large");
      out.write = b == "WRITE";
      out.at = cycle * m_cycle_ps;
    }
    out.addr = addr;
    out.bytes = m_bytes;
    ++m_count;
    return Next::kReady;
  }
}

}  // namespace mxc::hbm
