#include "stop_signals.h"

namespace mxc::app {

namespace {
std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }
}  // namespace

StopSignals::StopSignals(bool second_kills) {
  static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = second_kills ? SA_RESETHAND : 0;
  sigaction(SIGINT, &sa, &m_old_int);
  sigaction(SIGTERM, &sa, &m_old_term);
  sigaction(SIGHUP, &sa, &m_old_hup);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &m_old_int, nullptr);
  sigaction(SIGTERM, &m_old_term, nullptr);
  sigaction(SIGHUP, &m_old_hup, nullptr);
}

const std::atomic<bool>* StopSignals::flag() { return &g_stop; }

}  // namespace mxc::app
