#include "regress/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace mxc::regress {

namespace {
// The environment variable naming the process that started this one with Subprocess.
constexpr const char* kParentVariable = "MXCOSIM_SUBPROCESS_PARENT";
}  // namespace

bool end_with_parent_if_its_subprocess() {
  const char* parent = std::getenv(kParentVariable);
  if (!parent) return true;
  if (std::to_string(getppid()) != parent) {
    // Started through a wrapper (`--exe`), whose child this is while the runner lives; or the
    // runner died before this process got here (a slow start: a sanitizer build's), which left
    // it orphaned. Only the second ends.
    char* end = nullptr;
    const long pid = std::strtol(parent, &end, 10);
    if (*end != '\0' || pid <= 0) return true;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
  }
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  return std::to_string(getppid()) == parent;  // it may have died before the request
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    default: return "signal " + std::to_string(sig);
  }
}

Subprocess::Subprocess(const std::vector<std::string>& argv, const std::string& stdout_path,
                       const std::string& stderr_path, double timeout_seconds, std::uint64_t max_log_bytes,
                       const std::string& program)
    : m_timeout(timeout_seconds),
      m_logs{stdout_path, stderr_path},
      m_max_log_bytes(max_log_bytes),
      m_start(std::chrono::steady_clock::now()) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  posix_spawn_file_actions_t files;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_init(&attr);
  // A group of its own: the timeout kills grandchildren too, and a Ctrl-C in
  // the terminal reaches the runner alone, which then cleans up.
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGHUP);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  // Named for end_with_parent_if_its_subprocess() in the child (the runner spawns from one thread,
  // whose exit is what the kernel watches).
  ::setenv(kParentVariable, std::to_string(getpid()).c_str(), 1);
  const char* path = program.empty() ? args[0] : program.c_str();
  const int rc = posix_spawn(&m_pid, path, &files, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    m_pid = -1;
    m_done = true;
    ProcessOutcome o;
    o.kind = ProcessOutcome::Kind::spawn_failed;
    o.failure = "cannot start '" + argv[0] + "': " + std::strerror(rc);
    m_failed = o;
  }
}

Subprocess::~Subprocess() {
  if (!m_done) kill_now();
}

double Subprocess::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

std::optional<ProcessOutcome> Subprocess::poll() {
  if (m_failed) {
    auto o = m_failed;
    m_failed.reset();
    return o;
  }
  if (m_done) return std::nullopt;
  int status = 0;
  const pid_t r = waitpid(m_pid, &status, WNOHANG);
  if (r < 0 && errno != EINTR) return wait_failed(errno);
  if (r == m_pid) {
    m_done = true;
    // The test's own leftovers (background children) die with it.
    ::kill(-m_pid, SIGKILL);
    ProcessOutcome o;
    o.wall_seconds = elapsed();
    if (WIFEXITED(status)) {
      o.kind = ProcessOutcome::Kind::exited;
      o.exit_code = WEXITSTATUS(status);
    } else {
      o.kind = ProcessOutcome::Kind::signaled;
      o.signal = WTERMSIG(status);
    }
    // One that wrote past the limit between two looks and ended is held to
    // it all the same.
    if (const auto log = oversized_log()) {
      o.kind = ProcessOutcome::Kind::log_too_large;
      o.log_file = *log;
      o.log_limit = m_max_log_bytes;
      o.log_killed = false;
    }
    return o;
  }
  if (elapsed() >= m_timeout) {
    kill_now();
    ProcessOutcome o;
    o.kind = ProcessOutcome::Kind::timed_out;
    o.wall_seconds = elapsed();
    return o;
  }
  // Looked at on every poll (two stat calls): a fast writer passes the
  // limit by what it writes between two polls.
  if (const auto log = oversized_log()) {
    kill_now();
    ProcessOutcome o;
    o.kind = ProcessOutcome::Kind::log_too_large;
    o.log_file = *log;
    o.log_limit = m_max_log_bytes;
    o.wall_seconds = elapsed();
    return o;
  }
  return std::nullopt;
}

ProcessOutcome Subprocess::wait_failed(int error) {
  m_done = true;
  ::kill(-m_pid, SIGKILL);  // whatever of its group is left
  ProcessOutcome o;
  o.kind = ProcessOutcome::Kind::wait_failed;
  o.failure = "cannot wait for the test's process " + std::to_string(m_pid) + ": waitpid failed with errno " +
              std::to_string(error) + " (" + std::strerror(error) + ")";
  o.wall_seconds = elapsed();
  return o;
}

std::optional<std::string> Subprocess::oversized_log() const {
  if (m_max_log_bytes == 0) return std::nullopt;
  for (const std::string& log : m_logs) {
    std::error_code ec;
    if (const std::uintmax_t size = std::filesystem::file_size(log, ec); !ec && size > m_max_log_bytes)
      return std::filesystem::path(log).filename().string();
  }
  return std::nullopt;
}

void Subprocess::kill_now() {
  if (m_done || m_pid <= 0) return;
  ::kill(-m_pid, SIGKILL);
  int status = 0;
  while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  m_done = true;
}

}  // namespace mxc::regress
