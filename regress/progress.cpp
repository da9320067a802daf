#include "regress/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "regress/junit_writer.h"

namespace mxc::regress {

namespace {

// Columns of the terminal `out` is, 80 when it does not say.
std::size_t terminal_width(std::FILE* out) {
  winsize ws{};
  if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 80;
}

double seconds_between(Progress::Clock::time_point from, Progress::Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

void Counts::add(const std::string& status) {
  if (status == "pass") ++pass;
  else if (status == "fail") ++fail;
  else if (status == "skipped") ++skipped;
  else ++error;
}

Progress::Progress(std::size_t total, bool enabled, std::FILE* out, const Counts& earlier)
    : m_total(total), m_enabled(enabled), m_tty(isatty(fileno(out)) != 0), m_out(out), m_counts(earlier),
      m_start(Clock::now()), m_last_redraw(m_start), m_last_heartbeat(m_start) {}

std::string Progress::duration(double seconds) {
  const long s = std::max(0L, std::lround(seconds));
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

std::string Progress::line(const Counts& c, std::size_t total, double elapsed, std::size_t done_here,
                           std::size_t width) {
  const std::size_t done = c.done();
  const std::size_t filled = total ? done * width / total : width;
  std::string bar = "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]";
  char eta[32] = "--:--";
  // Only the tests this process ran took the elapsed time: a resumed run's
  // earlier results would make the rest look almost free.
  if (done_here > 0 && done < total) {
    const long s = std::lround(elapsed / static_cast<double>(done_here) * static_cast<double>(total - done));
    std::snprintf(eta, sizeof eta, "%ld:%02ld", s / 60, s % 60);
  } else if (done == total) {
    std::snprintf(eta, sizeof eta, "0:00");
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s %zu/%zu  pass %zu  fail %zu  error %zu  skip %zu  ETA %s", bar.c_str(), done,
                total, c.pass, c.fail, c.error, c.skipped, eta);
  return buf;
}

void Progress::start(std::size_t to_run, unsigned jobs, const std::string& out_dir) {
  m_start = m_last_redraw = m_last_heartbeat = Clock::now();
  if (!m_enabled) return;
  const std::size_t earlier = m_counts.done();
  std::fprintf(m_out, "regress: %zu test%s to run%s, -j %u, out %s\n", to_run, to_run == 1 ? "" : "s",
               earlier ? (" (" + std::to_string(earlier) + " done earlier)").c_str() : "", jobs,
               console_text(out_dir).c_str());
  if (m_tty) redraw(m_start);
  std::fflush(m_out);
}

void Progress::test_started(const std::string& test_id, Clock::time_point now) { m_running[test_id] = now; }

std::string Progress::running_list(Clock::time_point now, bool with_times) const {
  std::string list;
  for (const auto& [id, since] : m_running) {
    list += (list.empty() ? "" : ", ") + console_text(id);
    if (with_times) list += " (" + duration(seconds_between(since, now)) + ")";
  }
  return list;
}

void Progress::redraw(Clock::time_point now) {
  m_last_redraw = now;
  const double elapsed = seconds_between(m_start, now);
  std::string text = line(m_counts, m_total, elapsed, m_done_here) + "  " + duration(elapsed);
  if (!m_running.empty()) text += "  running: " + running_list(now, false);
  // One screen line, or the next redraw would leave the wrapped rest behind.
  const std::size_t width = terminal_width(m_out) - 1;
  if (text.size() > width) text = text.substr(0, width - 3) + "...";
  std::fprintf(m_out, "\r\033[K%s", text.c_str());
}

void Progress::tick(Clock::time_point now) {
  if (!m_enabled) return;
  if (m_tty) {
    if (seconds_between(m_last_redraw, now) < 1.0) return;
    redraw(now);
  } else {
    if (m_running.empty() || seconds_between(m_last_heartbeat, now) < m_heartbeat_seconds) return;
    m_last_heartbeat = now;
    std::fprintf(m_out, "still running after %s: %zu/%zu done; running: %s\n",
                 duration(seconds_between(m_start, now)).c_str(), m_counts.done(), m_total,
                 running_list(now, true).c_str());
  }
  std::fflush(m_out);
}

void Progress::test_finished(const std::string& test_id, const std::string& status, const std::string& message,
                             double wall_seconds) {
  m_counts.add(status);
  ++m_done_here;
  m_running.erase(test_id);
  if (!m_enabled) return;
  const auto now = Clock::now();
  const std::string bar = line(m_counts, m_total, seconds_between(m_start, now), m_done_here);
  // As the report files have them, and no byte that moves the cursor: a NUL
  // byte of a test's output would end the text here, an escape byte or a
  // carriage return would act on the terminal.
  const std::string id = console_text(test_id), why = console_text(message);
  if (m_tty) {
    // Failures stay on screen above the redrawn bar.
    if (status != "pass") std::fprintf(m_out, "\r\033[K%-7s %s  %s\n", status.c_str(), id.c_str(), why.c_str());
    redraw(now);
  } else {
    std::fprintf(m_out, "%-7s %s (%.2f s)%s%s\n        %s\n", status.c_str(), id.c_str(), wall_seconds,
                 why.empty() ? "" : "  ", why.c_str(), bar.c_str());
  }
  std::fflush(m_out);
}

void Progress::finish() {
  if (m_enabled && m_tty) {
    redraw(Clock::now());
    std::fprintf(m_out, "\n");
    std::fflush(m_out);
  }
}

}  // namespace mxc::regress
