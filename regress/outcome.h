#pragma once
// Deciding a test's status from how its process ended and what it wrote.
#include <string>

#include "regress/result_reader.h"
#include "regress/subprocess.h"

namespace mxc::regress {

struct Verdict {
  std::string status;   ///< "pass", "fail", "error" or "skipped".
  std::string message;
};

/// `stderr_text` is the test's captured stderr; `expect_fail` marks a
/// mutation test, which passes only when the checker reports a mismatch.
///  exit 0            -> pass (mutation test: fail, "mutation not detected")
///  exit 1            -> fail with the results' error or first mismatch
///  exit 2 + "no RTL of a" -> skipped: size not built (see docs/regress.md)
///  exit 2 otherwise  -> error: usage error and the last stderr line (not
///                       counting a "(see ... --help)" pointer after it)
///  signal / timeout  -> error: "crash: SIGSEGV" / "timeout after 60 s"
Verdict decide(const ProcessOutcome& p, const ResultsFile& results, const std::string& stderr_text,
               bool expect_fail, double timeout_seconds);

/// A command line a person can paste into a shell.
std::string shell_join(const std::vector<std::string>& args);

}  // namespace mxc::regress
