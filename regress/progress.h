#pragma once
// The runner's progress output. A start line (tests, -j, out folder); then
// on a terminal one redrawn line: done/total, pass/fail counts, ETA, elapsed
// time and the tests running, redrawn as tests end and about once a second;
// elsewhere (CI logs) one line per finished test and, while tests run, a
// heartbeat every few minutes naming each running test and how long it has
// run. None of it is a result: reports never depend on it.
#include <chrono>
#include <cstdio>
#include <map>
#include <string>

namespace mxc::regress {

struct Counts {
  std::size_t pass = 0, fail = 0, error = 0, skipped = 0;
  std::size_t done() const { return pass + fail + error + skipped; }
  void add(const std::string& status);
};

class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  /// `enabled` false prints nothing. `earlier`: results an earlier command
  /// recorded (a resumed run); they count as done but took none of this
  /// process's time, and are not printed one by one.
  Progress(std::size_t total, bool enabled, std::FILE* out = stderr, const Counts& earlier = {});
  /// The start line: "regress: N tests to run (M done earlier), -j J, out DIR".
  void start(std::size_t to_run, unsigned jobs, const std::string& out_dir);
  void test_started(const std::string& test_id, Clock::time_point now = Clock::now());
  void test_finished(const std::string& test_id, const std::string& status, const std::string& message,
                     double wall_seconds);
  /// Called as the runner polls: redraws a terminal's line once a second,
  /// prints a log's heartbeat every heartbeat interval.
  void tick(Clock::time_point now = Clock::now());
  void finish();
  const Counts& counts() const { return m_counts; }
  /// Seconds between a log's heartbeat lines (5 minutes unless set).
  void set_heartbeat_seconds(double s) { m_heartbeat_seconds = s; }

  /// The bar text alone: "[#####.....] 5/10 pass 4 fail 1 error 0 skip 0 ETA 0:12". The ETA is
  /// elapsed_seconds / done_here x the tests left, where done_here of the done ones took that time.
  static std::string line(const Counts& c, std::size_t total, double elapsed_seconds, std::size_t done_here,
                          std::size_t width = 24);
  /// "1:05" (minutes:seconds), "2:03:04" from an hour on.
  static std::string duration(double seconds);

 private:
  void redraw(Clock::time_point now);
  std::string running_list(Clock::time_point now, bool with_times) const;

  std::size_t m_total;
  bool m_enabled;
  bool m_tty;
  std::FILE* m_out;
  Counts m_counts;
  std::size_t m_done_here = 0;  ///< Finished by this process.
  Clock::time_point m_start, m_last_redraw, m_last_heartbeat;
  double m_heartbeat_seconds = 300;
  std::map<std::string, Clock::time_point> m_running;  ///< By id: the line lists them in a fixed order.
};

}  // namespace mxc::regress
