#include "stop_signals.h"

namespace mxc::app {

namespace {
std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }

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
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = second_kills ? SA_RESETHAND : 0;
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

}  // namespace mxc::app
