#pragma once
// The runner's progress line: done/total, pass/fail counts, ETA. On a
// terminal it redraws one line; elsewhere (CI logs) it prints one line per
// finished test.
#include <chrono>
#include <cstdio>
#include <string>

namespace mxc::regress {

struct Counts {
  std::size_t pass = 0, fail = 0, error = 0, skipped = 0;
  std::size_t done() const { return pass + fail + error + skipped; }
  void add(const std::string& status);
};

class Progress {
 public:
  /// `enabled` false prints nothing.
  Progress(std::size_t total, bool enabled, std::FILE* out = stderr);
  /// `earlier`: a result an earlier command recorded (a resumed run); it
  /// counts as done but took none of this process's time.
  void test_finished(const std::string& test_id, const std::string& status, const std::string& message,
                     double wall_seconds, bool earlier = false);
  void finish();
  const Counts& counts() const { return m_counts; }

  /// The bar text alone: "[#####.....] 5/10 pass 4 fail 1 error 0 skip 0 ETA 0:12". The ETA is
  /// elapsed_seconds / done_here x the tests left, where done_here of the done ones took that time.
  static std::string line(const Counts& c, std::size_t total, double elapsed_seconds, std::size_t done_here,
                          std::size_t width = 24);

 private:
  std::size_t m_total;
  bool m_enabled;
  bool m_tty;
  std::FILE* m_out;
  Counts m_counts;
  std::size_t m_done_here = 0;  ///< Finished by this process.
  std::chrono::steady_clock::time_point m_start;
};

}  // namespace mxc::regress
