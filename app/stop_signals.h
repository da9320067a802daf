#pragma once
// SIGINT, SIGTERM and SIGHUP (its terminal closed) as a request to stop: a
// command that can end cleanly (keep what it has recorded, remove what it
// made) polls a flag instead of being killed on the spot.
#include <atomic>
#include <csignal>
#include <string>

namespace mxc::app {

class StopSignals {
 public:
  /// Until destroyed, SIGINT, SIGTERM and SIGHUP set flag(); one that was
  /// ignored (nohup, a script's background job) stays ignored. With
  /// `second_kills`, a second signal takes its default action, for a user
  /// who will not wait; but the same signal again within a second is the
  /// same request delivered twice (GNU timeout signals the command, then its
  /// process group) and changes nothing.
  explicit StopSignals(bool second_kills = false);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// Set by the first signal.
  static const std::atomic<bool>* flag();
  /// "a signal (SIGTERM)": the first signal, for "stopped by ..." ("a signal" before any came).
  static std::string named();

 private:
  struct sigaction m_old_int {}, m_old_term {}, m_old_hup {};
};

}  // namespace mxc::app
