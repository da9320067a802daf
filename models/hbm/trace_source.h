#pragma once
// Requests from a trace file, plain or gzip (CompressedFileReader reads both):
//   DRAMsim3:  "0x1f80 READ 120"   address, READ|WRITE, issue cycle (tCK)
//   Ramulator: "LD 0x1f80" / "ST 0x1f80"   no timing: as fast as allowed
// Blank lines and lines starting with '#' are skipped; with kAuto the first
// request line picks the format for the whole file; a file of no requests
// is an error. Errors name the file
// and line. The file is read in large blocks and each line parsed in place:
// a trace of random reads runs at 0.8 to 0.9 of the speed of the same
// requests generated (hbm_bench; parsed line by line through string
// streams it ran at half).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/core/compressed_file.h"
#include "models/core/input_limits.h"
#include "models/hbm/request_source.h"

namespace mxc::hbm {

enum class TraceFormat { kAuto, kDramsim3, kRamulator };

class TraceSource : public RequestSource {
 public:
  /// `cycle_ps`: length of a DRAMsim3 trace cycle; `bytes`: request size.
  TraceSource(const std::string& path, TraceFormat fmt, Time cycle_ps, std::uint32_t bytes,
              std::uint64_t max_requests = UINT64_MAX);
  TraceSource(const TraceSource&) = delete;
  TraceSource& operator=(const TraceSource&) = delete;

  Next next(SourceItem& out) override;
  std::string where() const override { return m_path + ":" + std::to_string(m_line); }

  /// With `on`, an error after the first request (a bad line, a truncated
  /// gzip file) ends the trace there instead of throwing: the requests
  /// before it still run to completion, and error() says what ended it.
  /// An error before any request still throws (there would be no results).
  void stop_at_error(bool on) { m_stop_at_error = on; }
  /// Why the trace ended early ("file:line: what"), empty if it did not.
  const std::string& error() const { return m_error; }

  /// DRAMsim3 lines read so far whose cycle is before an earlier line's,
  /// and the first of them (0: none). They are issued in file order.
  std::uint64_t backwards_lines() const { return m_backwards; }
  std::uint64_t first_backwards_line() const { return m_first_backwards_line; }

  /// Longest line accepted, newline excluded (a longer one is an error:
  /// most likely not a trace at all).
  static constexpr std::size_t kMaxLine = kMaxInputLine;

 private:
  Next read_next(SourceItem& out);
  [[noreturn]] void fail(const std::string& what) const;
  /// The next line without its newline, false at the end of the file.
  bool read_line(std::string_view& line);

  std::vector<char> m_buf;  // file data; [m_pos, m_end) not yet parsed
  std::size_t m_pos = 0, m_end = 0;
  bool m_eof = false;
  std::string m_read_error;  // the file's error, once the data before it is parsed

  std::string m_path;
  TraceFormat m_fmt;
  Time m_cycle_ps;
  std::uint32_t m_bytes;
  std::uint64_t m_max;
  std::uint64_t m_count = 0;
  std::uint64_t m_line = 0;
  std::uint64_t m_last_cycle = 0, m_backwards = 0, m_first_backwards_line = 0;
  CompressedFileReader m_file;
  bool m_stop_at_error = false;
  std::string m_error;
};

/// Parses "auto", "dramsim3", "ramulator".
TraceFormat parse_trace_format(const std::string& s);

}  // namespace mxc::hbm
