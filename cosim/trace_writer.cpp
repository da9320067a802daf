#include "cosim/trace_writer.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "cosim/json_text.h"

namespace mxc {

namespace {

constexpr std::size_t kFlushBytes = 1 << 16;

// Invalid UTF-8 in a name is replaced, never an exception mid-trace.
std::string json_string(std::string_view s) { return json_text(nlohmann::json(std::string(s))); }

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

/// Where the bytes go: a gzip stream or a plain file.
class TraceWriter::Sink {
 public:
  explicit Sink(const std::string& path) : m_gzip(ends_with(path, ".gz")) {
    errno = 0;
    if (m_gzip) {
      // gzopen writes a header without file name or time stamp: the output depends on the content only.
      m_gz = gzopen(path.c_str(), "wb6");
      if (!m_gz) throw std::runtime_error("cannot open trace file '" + path + "': " + reason());
    } else {
      m_file = std::fopen(path.c_str(), "wb");
      if (!m_file) throw std::runtime_error("cannot open trace file '" + path + "': " + reason());
    }
  }
  ~Sink() { (void)finish(); }

  bool write(const std::string& bytes) {
    if (bytes.empty()) return true;
    if (m_gzip) return gzwrite(m_gz, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size());
    return std::fwrite(bytes.data(), 1, bytes.size(), m_file) == bytes.size();
  }
  /// Closes once; false on error.
  bool finish() {
    bool ok = true;
    if (m_gz) ok = gzclose(m_gz) == Z_OK;
    if (m_file) ok = std::fclose(m_file) == 0;
    m_gz = nullptr;
    m_file = nullptr;
    return ok;
  }
  static std::string reason() { return errno ? std::strerror(errno) : "the write failed"; }

 private:
  bool m_gzip;
  gzFile m_gz = nullptr;
  std::FILE* m_file = nullptr;
};

std::string trace_microseconds(Time ps) {
  char frac[8];
  std::snprintf(frac, sizeof frac, "%06llu", static_cast<unsigned long long>(ps % 1'000'000));
  return std::to_string(ps / 1'000'000) + "." + frac;
}

TraceWriter::TraceWriter(const std::string& path) : m_path(path), m_sink(std::make_unique<Sink>(path)) {
  m_buf = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
}

TraceWriter::~TraceWriter() {
  try {
    close();
  } catch (const std::exception&) {
    // A destructor cannot report; close() explicitly to see write errors.
  }
}

void TraceWriter::begin_event() {
  if (!m_sink) throw std::logic_error("trace file '" + m_path + "': event after close()");
  m_buf += s_events++ == 0 ? "\n" : ",\n";
}

void TraceWriter::flush_if_full() {
  if (m_buf.size() < kFlushBytes) return;
  if (m_stop && m_stop->load(std::memory_order_relaxed))
    throw std::runtime_error("trace file '" + m_path + "' not written whole: stopped by a signal");
  if (!m_sink->write(m_buf))
    throw std::runtime_error("cannot write trace file '" + m_path + "': " + Sink::reason() +
                             " (the file is incomplete)");
  m_buf.clear();
}

void TraceWriter::process(int pid, std::string name) {
  begin_event();
  m_buf += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":0,\"args\":{\"name\":" + json_string(name) + "}}";
  begin_event();
  m_buf += "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":0,\"args\":{\"sort_index\":" + std::to_string(pid) + "}}";
  flush_if_full();
}

void TraceWriter::thread(int pid, int tid, std::string name, std::int64_t sort_index) {
  const std::string ids = ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  begin_event();
  m_buf += "{\"name\":\"thread_name\",\"ph\":\"M\"" + ids + ",\"args\":{\"name\":" + json_string(name) + "}}";
  begin_event();
  m_buf += "{\"name\":\"thread_sort_index\",\"ph\":\"M\"" + ids + ",\"args\":{\"sort_index\":" +
           std::to_string(sort_index) + "}}";
  flush_if_full();
}

void TraceWriter::complete(int pid, int tid, std::string_view name, std::string_view category, Time start_ps,
                           Time duration_ps, const nlohmann::json& args) {
  begin_event();
  m_buf += "{\"name\":" + json_string(name) + ",\"cat\":" + json_string(category) + ",\"ph\":\"X\",\"ts\":" +
           trace_microseconds(start_ps) + ",\"dur\":" + trace_microseconds(duration_ps) +
           ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  if (!args.is_null()) m_buf += ",\"args\":" + json_text(args);
  m_buf += "}";
  flush_if_full();
}

void TraceWriter::instant(int pid, int tid, std::string_view name, std::string_view category, Time at_ps,
                          const nlohmann::json& args) {
  begin_event();
  m_buf += "{\"name\":" + json_string(name) + ",\"cat\":" + json_string(category) + ",\"ph\":\"i\",\"s\":\"t\",\"ts\":" +
           trace_microseconds(at_ps) + ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  if (!args.is_null()) m_buf += ",\"args\":" + json_text(args);
  m_buf += "}";
  flush_if_full();
}

void TraceWriter::counter(int pid, std::string_view name, Time at_ps, const nlohmann::json& values) {
  if (!values.is_object())
    throw std::invalid_argument("trace file '" + m_path + "': counter '" + std::string(name) +
                                "' values must be an object of series -> number");
  begin_event();
  m_buf += "{\"name\":" + json_string(name) + ",\"ph\":\"C\",\"ts\":" + trace_microseconds(at_ps) +
           ",\"pid\":" + std::to_string(pid) + ",\"args\":" + json_text(values) + "}";
  flush_if_full();
}

void TraceWriter::close() {
  if (!m_sink) return;
  m_buf += "\n]}\n";
  std::unique_ptr<Sink> sink = std::move(m_sink);  // closed exactly once, even if writing fails
  errno = 0;
  const bool wrote = sink->write(m_buf);
  const int write_errno = errno;
  m_buf.clear();
  errno = 0;
  const bool closed = sink->finish();
  if (!wrote) errno = write_errno;  // the first failure's reason ("No space left on device")
  if (!wrote || !closed)
    throw std::runtime_error("cannot write trace file '" + m_path + "': " + Sink::reason() +
                             " (the file is incomplete)");
}

}  // namespace mxc
