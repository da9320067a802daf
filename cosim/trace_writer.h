#pragma once
// TraceWriter: a timeline in the Chrome trace-event JSON format
// (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU)
// that Perfetto (ui.perfetto.dev) and chrome://tracing open. A path ending in
// ".gz" is written gzip-compressed with zlib, any other (".json") plain.
// Events are streamed in call order; numbers have fixed formatting, so the
// same calls give the same bytes.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "models/core/time.h"

namespace mxc {

class TraceWriter {
 public:
  /// Opens (truncates) `path`; throws std::runtime_error naming it on failure.
  explicit TraceWriter(const std::string& path);
  /// Closes the file; errors here are swallowed (call close() to see them).
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  /// Names process `pid` (a chip, a memory); processes are listed by pid.
  void process(int pid, std::string name);
  /// Names thread `tid` of `pid` (one track); a viewer lists a process's tracks by
  /// `sort_index` (64 bits: room between tracks' ids, timeline.h's kTraceSortStride).
  void thread(int pid, int tid, std::string name, std::int64_t sort_index);
  /// A slice from start_ps lasting duration_ps ("ph":"X").
  void complete(int pid, int tid, std::string_view name, std::string_view category, Time start_ps, Time duration_ps,
                const nlohmann::json& args = {});
  /// A point event on one track ("ph":"i", thread scope).
  void instant(int pid, int tid, std::string_view name, std::string_view category, Time at_ps,
               const nlohmann::json& args = {});
  /// Counter values at at_ps ("ph":"C"); `values` is an object of series -> number.
  void counter(int pid, std::string_view name, Time at_ps, const nlohmann::json& values);

  /// Finishes the JSON and closes the file; throws std::runtime_error naming it on a write error.
  void close();

  /// While `*stop` is false; once it is true, the next block written throws std::runtime_error
  /// ("... stopped by a signal") instead (a user asked to stop: a long timeline is not waited for).
  void set_stop(const std::atomic<bool>* stop) { m_stop = stop; }

  const std::string& path() const { return m_path; }
  /// Events written so far (metadata included).
  std::uint64_t events() const { return s_events; }

 private:
  class Sink;

  void begin_event();
  void flush_if_full();

  std::string m_path;
  std::unique_ptr<Sink> m_sink;
  std::string m_buf;  // pending output, written in large blocks
  std::uint64_t s_events = 0;
  const std::atomic<bool>* m_stop = nullptr;
};

/// Picoseconds as microseconds with exactly six decimals ("1.234567"): exact, locale-independent.
std::string trace_microseconds(Time ps);

}  // namespace mxc
