#pragma once
// Runs a function in a forked child process and collects the text it returns
// (or "error: ..." if it threw). Fork only while the test process runs no
// other thread: the child gets a copy of the one that forks. Shared by the
// transport tests and bench/transport.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>

namespace mxc::transport::testing {

struct Child {
  pid_t pid = -1;
  int fd = -1;
};

inline Child fork_child(const std::function<std::string()>& body) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    try {
      out = body();
    } catch (const std::exception& e) {
      out = std::string("error: ") + e.what();
    }
    for (std::size_t off = 0; off < out.size();) {
      const ssize_t n = write(fds[1], out.data() + off, out.size() - off);
      if (n <= 0) _exit(3);
      off += static_cast<std::size_t>(n);
    }
    close(fds[1]);
    _exit(0);  // no test-framework teardown in the child
  }
  close(fds[1]);
  return {pid, fds[0]};
}

/// Everything the child wrote, once it has exited.
inline std::string collect(Child c) {
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = read(c.fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(c.fd);
  int status = 0;
  waitpid(c.pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) text += " [child exited abnormally]";
  return text;
}

}  // namespace mxc::transport::testing
