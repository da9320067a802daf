#include "models/core/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace mxc {

namespace {
std::string reason() { return errno != 0 ? std::string(": ") + std::strerror(errno) : std::string(); }
}  // namespace

void check_output_path(const std::string& path, std::string_view option) {
  namespace fs = std::filesystem;
  const std::string what = std::string(option) + " " + path + ": ";
  if (path.empty()) throw std::invalid_argument(std::string(option) + ": empty file name");
  // Elsewhere "-" means standard output; here it would quietly make a file of that name.
  if (path == "-")
    throw std::invalid_argument(what + "writes a file, not to standard output: give a file name (./- for a file "
                                       "named -)");
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::invalid_argument(what + "is a directory");
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw std::invalid_argument(what + (fs::exists(dir, ec) ? "'" + dir.string() + "' is not a folder"
                                                             : "folder '" + dir.string() + "' does not exist"));
  // The file itself when it exists (it may be read-only), else its folder.
  const std::string target = fs::exists(p, ec) ? path : dir.string();
  errno = 0;
  if (::access(target.c_str(), W_OK) != 0) throw std::invalid_argument(what + "cannot be written" + reason());
}

std::string replaceable_output_path(const std::string& path, std::string_view option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Follow the links (a dangling one too: its target is where the file goes).
  fs::path target = path;
  for (int hops = 0; fs::is_symlink(target, ec); ++hops) {
    if (hops == 40) throw std::invalid_argument(std::string(option) + " " + path + ": too many symbolic links");
    const fs::path to = fs::read_symlink(target, ec);
    if (ec) throw std::invalid_argument(std::string(option) + " " + path + ": " + ec.message());
    target = to.is_absolute() ? to : target.parent_path() / to;
  }
  const fs::file_status st = fs::status(target, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw std::invalid_argument(std::string(option) + " " + path +
                                ": not a regular file (the file written takes its place)");
  return target.string();
}

void write_output_file(const std::string& path, std::string_view text) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path + ": cannot open for writing" + reason());
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();  // flushes: a full disk shows here
  if (!out) throw std::runtime_error(path + ": writing failed" + reason() + " (the file is incomplete)");
}

}  // namespace mxc
