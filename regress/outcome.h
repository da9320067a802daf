#pragma once
// Deciding a test's status from how its process ended and what it wrote.
#include <string>
#include <vector>

#include "regress/result_reader.h"
#include "regress/subprocess.h"

namespace mxc::regress {

struct Verdict {
  std::string status;   ///< "pass", "fail", "error" or "skipped".
  std::string message;
};

/// `stderr_text` is the test's captured stderr; `expect_fail` marks an
/// expected failure (a mutation test), which passes only when the checker
/// reports a mismatch (whatever the exit code); `writes_results` marks a command that always
/// writes its --json results (run, hbm, ici, model).
///  exit 0            -> pass, unless results.json says status fail or
///                       records a mismatch (fail with it), or a command
///                       that writes results wrote none readable (error);
///                       expected failure: fail, "mutation not detected: the
///                       run passed although it ran with FAULT" (`fault`, what
///                       its arguments inject: injected_fault()), or without
///                       one "expected to fail (expect: fail) but passed"
///  exit 1            -> fail with the results' error or first mismatch,
///                       else the last stderr line
///  exit 2 + "no RTL of a" -> skipped: size not built (see docs/regress.md)
///  exit 2 otherwise  -> error: usage error and the last stderr line (not
///                       counting a "(see ... --help)" pointer after it)
///  exit 130          -> error: "stopped by a signal (exit 130)", then the
///                       results' error, else the last stderr line
///  signal / timeout  -> error: "crash: SIGSEGV" / "timeout after 60 s"
/// The message is at most kMaxMessage bytes (short_message).
Verdict decide(const ProcessOutcome& p, const ResultsFile& results, const std::string& stderr_text,
               bool expect_fail, double timeout_seconds, bool writes_results = false,
               const std::string& fault = "");

/// The options of `args` that inject a fault, as given: "--inject-fault 5",
/// "--mutant skew_off_by_one", both in their order, or "" when none does.
std::string injected_fault(const std::vector<std::string>& args);

/// The exit code of an `mxcosim` command stopped by SIGINT, SIGTERM or
/// SIGHUP, which it caught to keep its results (app/command.h's kExitStopped).
inline constexpr int kExitStoppedBySignal = 130;

/// The longest message a result keeps: a test's last stderr line may be
/// megabytes long, and every report and console line shows it.
inline constexpr std::size_t kMaxMessage = 1000;

/// `text` when it has at most `max` bytes; else its start (two thirds) and
/// its end around " [... N bytes in all: the test's logs have the rest ...] ",
/// at most `max` bytes in all, cut between UTF-8 characters. Both ends: the start says
/// what went wrong ("exit code 3: mxcosim run: error: ..."), the end is
/// where a program's last words are.
std::string short_message(const std::string& text, std::size_t max = kMaxMessage);

/// A command line a person can paste into a shell.
std::string shell_join(const std::vector<std::string>& args);

}  // namespace mxc::regress
