#include "stop_signals.h"

#include <ctime>

namespace mxc::app {

namespace {
std::atomic<bool> g_stop{false};
// The first signal and when it came (CLOCK_MONOTONIC ns), for telling a repeat of it from a second request.
std::atomic<int> g_first_signal{0};
std::atomic<long long> g_first_ns{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<long long>::is_always_lock_free,
              "set from a signal handler");
constexpr long long kSameRequestNs = 1'000'000'000;

long long monotonic_ns() {  // clock_gettime is async-signal-safe
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  g_first_signal.compare_exchange_strong(none, sig);  // the first one names the stop
  g_stop.store(true);
}

// GNU timeout, and a terminal's Ctrl-C with a wrapper in the same process group, deliver one
// request twice: the same signal within a second is that request, not a user who will not wait.
extern "C" void on_stop_signal_second_kills(int sig) {
  const long long now = monotonic_ns();
  // The first signal claims the slot, its time is stored, and only then is the stop flag set:
  // two deliveries handled at once in two threads (GNU timeout signals the process, then its
  // group) must not see the flag before the first one's signal and time are there.
  int none = 0;
  if (g_first_signal.compare_exchange_strong(none, sig)) {
    g_first_ns.store(now);
    g_stop.store(true);
    return;
  }
  // A second delivery racing the first may find its time not stored yet: it is that request.
  const long long first_ns = g_first_ns.load();
  if (sig == g_first_signal.load() && (first_ns == 0 || now - first_ns < kSameRequestNs)) return;
  // Blocked while this handler runs: the default action (termination) follows its return.
  signal(sig, SIG_DFL);
  raise(sig);
}

// A signal ignored when the program started stays ignored: `nohup` ignores
// SIGHUP so that closing the terminal does not stop the command, and a shell
// ignores SIGINT for a background job of a script.
void catch_unless_ignored(int sig, const struct sigaction& sa, struct sigaction* old) {
  sigaction(sig, nullptr, old);
  if (old->sa_handler != SIG_IGN) sigaction(sig, &sa, nullptr);
}
}  // namespace

StopSignals::StopSignals(bool second_kills) {
  static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
  struct sigaction sa {};
  sa.sa_handler = second_kills ? on_stop_signal_second_kills : on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  catch_unless_ignored(SIGINT, sa, &m_old_int);
  catch_unless_ignored(SIGTERM, sa, &m_old_term);
  catch_unless_ignored(SIGHUP, sa, &m_old_hup);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &m_old_int, nullptr);
  sigaction(SIGTERM, &m_old_term, nullptr);
  sigaction(SIGHUP, &m_old_hup, nullptr);
}

const std::atomic<bool>* StopSignals::flag() { return &g_stop; }

std::string StopSignals::named() {
  switch (g_first_signal.load()) {
    case SIGINT: return "a signal (SIGINT)";
    case SIGTERM: return "a signal (SIGTERM)";
    case SIGHUP: return "a signal (SIGHUP)";
    default: return "a signal";
  }
}

}  // namespace mxc::app
