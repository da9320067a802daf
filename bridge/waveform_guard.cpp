#include "bridge/waveform_guard.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace mxc {

namespace {

// Written before the handler is installed: the handler may only call
// async-signal-safe functions (write, _exit).
char g_message[1024];
std::size_t g_length = 0;
struct sigaction g_previous;
int g_guards = 0;  // guards alive: the first installs, the last restores

void on_bus_error(int) {
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, g_message, g_length);
  ::_exit(2);
}

}  // namespace

WaveformGuard::WaveformGuard(const std::string& path) {
  if (g_guards++ > 0) return;  // one handler serves every waveform of the process
  const std::string text = "mxcosim: error: writing the waveform '" + path +
                           "' failed (bus error: is its file system full?); the run stopped there\n";
  g_length = std::min(text.size(), sizeof g_message);
  std::memcpy(g_message, text.data(), g_length);
  struct sigaction sa {};
  sa.sa_handler = on_bus_error;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGBUS, &sa, &g_previous);
}

WaveformGuard::~WaveformGuard() {
  if (--g_guards == 0) ::sigaction(SIGBUS, &g_previous, nullptr);
}

}  // namespace mxc
