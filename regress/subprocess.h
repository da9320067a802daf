#pragma once
// One child process in its own process group, its output sent to files, so
// a timeout can kill everything it started and a crash stays its own.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxc::regress {

struct ProcessOutcome {
  enum class Kind { exited, signaled, timed_out, spawn_failed, wait_failed, log_too_large };
  Kind kind = Kind::spawn_failed;
  int exit_code = -1;     ///< When exited.
  int signal = 0;         ///< When signaled.
  double wall_seconds = 0;
  std::string failure;    ///< When spawn_failed or wait_failed: why, naming the call and its errno.
  std::string log_file;       ///< When log_too_large: the log's name ("stderr.log").
  std::uint64_t log_limit = 0;  ///< When log_too_large: the limit it passed, in bytes.
  /// When log_too_large: killed for it, rather than found past the limit
  /// after it ended (exit_code or signal then tell how).
  bool log_killed = true;
};

/// "SIGSEGV" for SIGSEGV, "signal N" for one without a name here.
std::string signal_name(int sig);

/// In a program a Subprocess started (its parent names itself in the
/// environment for this), asks the kernel to kill it when that parent dies:
/// a runner killed outright (SIGKILL, which it cannot catch to stop its
/// tests) left them running, orphaned, writing into the folders its next
/// run reuses. A program started through a wrapper (`--exe`), whose parent
/// is the wrapper, is left as it is. Returns false when the parent is gone
/// already (it died before this process started up): the caller should end
/// at once.
bool end_with_parent_if_its_subprocess();

class Subprocess {
 public:
  /// Starts argv[0] (a path), or `program` when given (argv[0] is then
  /// only the name the child sees), with stdout/stderr redirected to the
  /// files. With `max_log_bytes` > 0, a child whose stdout or stderr file
  /// grows past it is killed (log_too_large): one that writes without end
  /// would fill the disk that the other tests' logs and results are written
  /// to. One found past it when it ended is log_too_large too.
  Subprocess(const std::vector<std::string>& argv, const std::string& stdout_path, const std::string& stderr_path,
             double timeout_seconds, std::uint64_t max_log_bytes = 0, const std::string& program = "");
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  /// Non-blocking: the outcome once the child ended (or was killed for its
  /// timeout or its logs' size), nothing while it still runs. A child that
  /// cannot be waited for (SIGCHLD ignored: the kernel reaped it) is
  /// wait_failed, never taken for one still running.
  std::optional<ProcessOutcome> poll();
  /// Kills the whole process group and reaps the child.
  void kill_now();
  pid_t pid() const { return m_pid; }

 private:
  double elapsed() const;
  /// The outcome of a waitpid() that failed with `error`; the child counts as done.
  ProcessOutcome wait_failed(int error);
  /// The name of a log past the limit ("stdout.log"), if one is.
  std::optional<std::string> oversized_log() const;

  pid_t m_pid = -1;
  bool m_done = false;
  double m_timeout;
  std::string m_logs[2];  // stdout's and stderr's files
  std::uint64_t m_max_log_bytes;
  std::chrono::steady_clock::time_point m_start;
  std::optional<ProcessOutcome> m_failed;
};

}  // namespace mxc::regress
