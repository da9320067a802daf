#pragma once
// One child process in its own process group, its output sent to files, so
// a timeout can kill everything it started and a crash stays its own.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace mxc::regress {

struct ProcessOutcome {
  enum class Kind { exited, signaled, timed_out, spawn_failed };
  Kind kind = Kind::spawn_failed;
  int exit_code = -1;     ///< When exited.
  int signal = 0;         ///< When signaled.
  double wall_seconds = 0;
  std::string spawn_error;
};

/// "SIGSEGV" for SIGSEGV, "signal N" for one without a name here.
std::string signal_name(int sig);

class Subprocess {
 public:
  /// Starts argv[0] (a path) with stdout/stderr redirected to the files.
  Subprocess(const std::vector<std::string>& argv, const std::string& stdout_path, const std::string& stderr_path,
             double timeout_seconds);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  /// Non-blocking: the outcome once the child ended (or was killed for its
  /// timeout), nothing while it still runs.
  std::optional<ProcessOutcome> poll();
  /// Kills the whole process group and reaps the child.
  void kill_now();
  pid_t pid() const { return m_pid; }

 private:
  double elapsed() const;

  pid_t m_pid = -1;
  bool m_done = false;
  double m_timeout;
  std::chrono::steady_clock::time_point m_start;
  std::optional<ProcessOutcome> m_failed;
};

}  // namespace mxc::regress
