#include "bridge/waveform_guard.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace mxc {

namespace {

// Written before the handler is installed: the handler may only call
// async-signal-safe functions (unlink, write, _exit).
char g_message[1024];
std::size_t g_length = 0;
// The writer's files: the waveform and its hierarchy (FILE.hier), removed
// when the writing fails, as they are cut short.
char g_files[2][4096];
struct sigaction g_previous;
int g_guards = 0;  // guards alive: the first installs, the last restores

void on_bus_error(int) {
  for (const char* f : g_files)
    if (f[0] != '\0') ::unlink(f);
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, g_message, g_length);
  ::_exit(2);
}

}  // namespace

WaveformGuard::WaveformGuard(const std::string& path) {
  if (g_guards++ > 0) return;  // one handler serves every waveform of the process
  const std::string text = "mxcosim: error: writing the waveform '" + path +
                           "' failed (bus error: is its file system full?); the run stopped there and the "
                           "partial file is removed\n";
  g_length = std::min(text.size(), sizeof g_message);
  std::memcpy(g_message, text.data(), g_length);
  const std::string files[2] = {path, path + ".hier"};
  for (int i = 0; i < 2; ++i) {
    const bool fits = files[i].size() < sizeof g_files[i];  // a longer path is left alone
    std::memcpy(g_files[i], files[i].c_str(), fits ? files[i].size() + 1 : 1);
    if (!fits) g_files[i][0] = '\0';
  }
  struct sigaction sa {};
  sa.sa_handler = on_bus_error;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGBUS, &sa, &g_previous);
}

WaveformGuard::~WaveformGuard() {
  if (--g_guards == 0) ::sigaction(SIGBUS, &g_previous, nullptr);
}

void clear_fst_date(const std::string& path) noexcept {
  // The FST header block (type 0) starts the file; its date field is 119
  // bytes at offset 202 (gtkwave's fstapi.c, FST_HDR_OFFS_DATE).
  constexpr long kDateOffset = 202;
  constexpr std::size_t kDateSize = 119;
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  if (!f) return;
  char date[kDateSize] = "reproducible (mxcosim)";
  if (std::fgetc(f) == 0 && std::fseek(f, kDateOffset, SEEK_SET) == 0) std::fwrite(date, 1, kDateSize, f);
  std::fclose(f);
}

}  // namespace mxc
