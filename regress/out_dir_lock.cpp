#include "regress/out_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace mxc::regress {

OutDirLock::OutDirLock(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / ".lock").string();
  // Close-on-exec: the tests it starts must not hold it after it ends.
  m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) throw std::invalid_argument("--out '" + dir + "': cannot open " + path + ": " + std::strerror(errno));
  if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char holder[32] = {};
    const ssize_t n = ::pread(m_fd, holder, sizeof holder - 1, 0);
    ::close(m_fd);
    m_fd = -1;
    if (err == EWOULDBLOCK)
      throw std::invalid_argument("--out '" + dir + "' is in use by another mxcosim regress" +
                                  (n > 0 ? " (process " + std::string(holder, static_cast<std::size_t>(n)) + ")" : "") +
                                  ": wait for it to end, or give another --out");
    throw std::invalid_argument("--out '" + dir + "': cannot lock " + path + ": " + std::strerror(err));
  }
  // Who holds it, for the message another command gives; the lock holds
  // whether the note is written or not.
  const std::string pid = std::to_string(::getpid());
  [[maybe_unused]] const bool noted =
      ::ftruncate(m_fd, 0) == 0 && ::pwrite(m_fd, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size());
}

OutDirLock::~OutDirLock() {
  if (m_fd >= 0) ::close(m_fd);  // releases the lock
}

}  // namespace mxc::regress
