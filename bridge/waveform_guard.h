#pragma once
// The FST writer maps its files into memory: when their file system fills
// up, the next store into the mapping raises SIGBUS and the process died
// with "Bus error" and no word of why, leaving the files cut short. While a
// waveform is written, a handler removes them and ends the run with an
// error naming the file (exit status 2).
#include <string>

namespace mxc {

class WaveformGuard {
 public:
  /// Installs the handler for writing `path` (while other guards live, the
  /// first one's handler and file name serve).
  explicit WaveformGuard(const std::string& path);
  /// Puts back the handler it replaced.
  ~WaveformGuard();
  WaveformGuard(const WaveformGuard&) = delete;
  WaveformGuard& operator=(const WaveformGuard&) = delete;
};

/// Writes a fixed date into a closed FST file's header (the writer puts the
/// wall-clock date there), so the same run gives the same file byte for
/// byte. Does nothing to a file that is not FST.
void clear_fst_date(const std::string& path) noexcept;

}  // namespace mxc
