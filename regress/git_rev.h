#pragma once
#include <string>

namespace mxc::regress {

/// `git rev-parse HEAD` in `dir`, or "unknown" outside a repository or
/// without git.
std::string git_revision(const std::string& dir = ".");

/// This machine's host name, "" when unknown.
std::string host_name();

}  // namespace mxc::regress
