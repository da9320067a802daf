#pragma once
// One `mxcosim regress` at a time per output folder: two on the same --out
// would run every test twice into the same log folders and results.
#include <string>

namespace mxc::regress {

class OutDirLock {
 public:
  /// Takes the lock on `dir` (its file `.lock`, which records the holder's
  /// process id) for this object's life; throws std::invalid_argument
  /// naming the holder when another process has it.
  explicit OutDirLock(const std::string& dir);
  ~OutDirLock();
  OutDirLock(const OutDirLock&) = delete;
  OutDirLock& operator=(const OutDirLock&) = delete;

 private:
  int m_fd = -1;
};

}  // namespace mxc::regress
