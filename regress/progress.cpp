#include "regress/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "regress/junit_writer.h"

namespace mxc::regress {

void Counts::add(const std::string& status) {
  if (status == "pass") ++pass;
  else if (status == "fail") ++fail;
  else if (status == "skipped") ++skipped;
  else ++error;
}

Progress::Progress(std::size_t total, bool enabled, std::FILE* out)
    : m_total(total), m_enabled(enabled), m_tty(isatty(fileno(out)) != 0), m_out(out),
      m_start(std::chrono::steady_clock::now()) {}

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

void Progress::test_finished(const std::string& test_id, const std::string& status, const std::string& message,
                             double wall_seconds, bool earlier) {
  m_counts.add(status);
  if (!earlier) ++m_done_here;
  if (!m_enabled) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  const std::string bar = line(m_counts, m_total, elapsed, m_done_here);
  // As the report files have them, and no byte that moves the cursor: a NUL
  // byte of a test's output would end the text here, an escape byte or a
  // carriage return would act on the terminal.
  const std::string id = console_text(test_id), why = console_text(message);
  if (m_tty) {
    // Failures stay on screen above the redrawn bar.
    if (status != "pass") std::fprintf(m_out, "\r\033[K%-7s %s  %s\n", status.c_str(), id.c_str(), why.c_str());
    std::fprintf(m_out, "\r\033[K%s", bar.c_str());
  } else {
    std::fprintf(m_out, "%-7s %s (%.2f s)%s%s\n        %s\n", status.c_str(), id.c_str(), wall_seconds,
                 why.empty() ? "" : "  ", why.c_str(), bar.c_str());
  }
  std::fflush(m_out);
}

void Progress::finish() {
  if (m_enabled && m_tty) std::fprintf(m_out, "\n");
}

}  // namespace mxc::regress
