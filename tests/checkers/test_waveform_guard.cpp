// A bus error while a waveform is written ends the run with a message, not a crash.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "bridge/waveform_guard.h"
#include "tests/temp_dir.h"

namespace {
/// Runs `body` in a child process with its standard error in a pipe;
/// returns the wait status and what it wrote.
template <class Body>
std::pair<int, std::string> in_child(Body body) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fds[1], STDERR_FILENO);
    body();
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buf[256];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {status, text};
}
}  // namespace

TEST_CASE("a bus error while a waveform is written exits 2 naming the file, and removes the partial files") {
  const mxc::testing::TempDir tmp;
  const auto& dir = tmp.path();
  const std::string wave = (dir / "w.fst").string();
  std::ofstream(wave) << "cut";
  std::ofstream(wave + ".hier") << "cut";
  std::ofstream((dir / "other").string()) << "kept";
  const auto [status, text] = in_child([&] {
    mxc::WaveformGuard guard(wave);
    ::raise(SIGBUS);
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(text == "mxcosim: error: writing the waveform '" + wave +
                    "' failed (bus error: is its file system full?); the run stopped there and the partial file is "
                    "removed\n");
  CHECK_FALSE(std::filesystem::exists(wave));
  CHECK_FALSE(std::filesystem::exists(wave + ".hier"));
  CHECK(std::filesystem::exists(dir / "other"));
}

TEST_CASE("the guard puts the default bus-error action back when the last one goes") {
  const auto [status, text] = in_child([] {
    ::signal(SIGBUS, SIG_DFL);  // a sanitizer build has its own handler in place
    {
      mxc::WaveformGuard a("a.fst");
      mxc::WaveformGuard b("b.fst");  // a second one keeps the first one's handler
    }
    ::raise(SIGBUS);
  });
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGBUS);
  CHECK(text.empty());
}
