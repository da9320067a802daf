#include "regress/outcome.h"

#include <sstream>

namespace mxc::regress {

namespace {

// A line that only points to the help, as "(see mxcosim run --help)" after
// a usage error: the cause is on the line before it.
bool help_hint(const std::string& line) {
  const auto first = line.find_first_not_of(" \t");
  const auto last = line.find_last_not_of(" \t\r");
  if (first == std::string::npos) return false;
  const std::string text = line.substr(first, last - first + 1);
  const std::string tail = "--help)";
  return text.rfind("(see ", 0) == 0 && text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// The last non-empty line that is not a pointer to the help, with the
// "mxcosim run: error: " style prefix kept (it tells which command spoke).
std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos && !help_hint(line)) last = line;
  return last;
}

std::string seconds(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}

bool records_mismatch(const ResultsFile& r) { return r.first_mismatch || r.mismatch_count.value_or(0) > 0; }

// Why the results file says the run failed: its error, its first mismatch or
// its mismatch count; "" when it says none of them.
std::string results_cause(const ResultsFile& r) {
  std::string why = r.error.value_or(r.first_mismatch.value_or(""));
  if (r.error && r.first_mismatch) why += "; first mismatch: " + *r.first_mismatch;
  if (why.empty() && r.mismatch_count.value_or(0) > 0)
    why = std::to_string(*r.mismatch_count) + " mismatch(es), none listed in results.json";
  return why;
}

// Exit 0 is a pass only when the results agree: a wrapper (`--exe`) may lose
// a failed run's exit code, and its results.json still says what happened.
Verdict decide_exit_0(const ResultsFile& results, bool expect_fail, bool writes_results, const std::string& fault) {
  if (writes_results && !results.parsed)
    return {"error", results.parse_error.empty() ? "exited 0 but wrote no results.json"
                                                 : "exited 0 but its results.json is not a JSON object"};
  if (expect_fail && records_mismatch(results)) return {"pass", ""};
  if (results.parsed && (results.status == "fail" || records_mismatch(results))) {
    const std::string why = results_cause(results);
    return {"fail", why.empty() ? "exited 0 but its results.json says status 'fail'" : why};
  }
  // Say what was expected of it: a fault its arguments inject, or only the suite's `expect: fail`
  // (a wrapper's own fault, a known failure).
  if (expect_fail)
    return {"fail", fault.empty() ? "expected to fail (expect: fail) but passed: no mismatch recorded"
                                  : "mutation not detected: the run passed although it ran with " + fault};
  return {"pass", ""};
}

// Exit 1: the results' cause, else the program's last word on stderr (a
// deadlocked fabric of `mxcosim ici` writes no error field).
Verdict decide_exit_1(const ResultsFile& results, const std::string& stderr_text, bool expect_fail) {
  if (expect_fail && records_mismatch(results)) return {"pass", ""};
  std::string why = results_cause(results);
  if (why.empty()) why = last_line(stderr_text);
  if (why.empty()) why = results.parsed ? "failed without a mismatch record" : "exit code 1";
  return {"fail", why};
}

Verdict decide_whole(const ProcessOutcome& p, const ResultsFile& results, const std::string& stderr_text,
                     bool expect_fail, double timeout_seconds, bool writes_results, const std::string& fault) {
  using Kind = ProcessOutcome::Kind;
  switch (p.kind) {
    case Kind::spawn_failed:
    case Kind::wait_failed: return {"error", p.failure};
    case Kind::timed_out: return {"error", "timeout after " + seconds(timeout_seconds) + " s"};
    case Kind::signaled: return {"error", "crash: " + signal_name(p.signal)};
    case Kind::log_too_large:
      return {"error", std::string(p.log_killed ? "killed: " : "") + "its " + p.log_file + " passed " +
                           std::to_string(p.log_limit >> 20) + " MiB (mxcosim regress --max-log-mb)"};
    case Kind::exited: break;
  }
  if (p.exit_code == 0) return decide_exit_0(results, expect_fail, writes_results, fault);
  if (p.exit_code == 1) return decide_exit_1(results, stderr_text, expect_fail);
  const std::string last = last_line(stderr_text);
  if (p.exit_code == 2 && stderr_text.find("no RTL of a ") != std::string::npos) {
    const auto at = last.find("no RTL of a ");
    return {"skipped", "size not built: " + (at == std::string::npos ? last : last.substr(at))};
  }
  if (p.exit_code == 2) return {"error", "usage error: " + last};
  if (p.exit_code == kExitStoppedBySignal) {
    const std::string why = results.error.value_or("").empty() ? last : *results.error;
    return {"error", "stopped by a signal (exit 130)" + (why.empty() ? "" : ": " + why)};
  }
  return {"error", "exit code " + std::to_string(p.exit_code) + (last.empty() ? "" : ": " + last)};
}

bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

}  // namespace

Verdict decide(const ProcessOutcome& p, const ResultsFile& results, const std::string& stderr_text,
               bool expect_fail, double timeout_seconds, bool writes_results, const std::string& fault) {
  Verdict v = decide_whole(p, results, stderr_text, expect_fail, timeout_seconds, writes_results, fault);
  v.message = short_message(v.message);
  return v;
}

std::string injected_fault(const std::vector<std::string>& args) {
  std::string out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string given;
    if ((a == "--inject-fault" || a == "--mutant") && i + 1 < args.size())
      given = a + " " + args[++i];
    else if (a.rfind("--inject-fault=", 0) == 0 || a.rfind("--mutant=", 0) == 0)
      given = a;
    if (!given.empty()) out += (out.empty() ? "" : " ") + given;
  }
  return out;
}

std::string short_message(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  const std::string cut = " [... " + std::to_string(text.size()) + " bytes in all: the test's logs have the rest ...] ";
  const std::size_t room = max > cut.size() ? max - cut.size() : 0;
  std::size_t head = room * 2 / 3, tail = text.size() - (room - head);
  while (head > 0 && utf8_continuation(text[head])) --head;
  while (tail < text.size() && utf8_continuation(text[tail])) ++tail;
  return text.substr(0, head) + cut + text.substr(tail);
}

std::string shell_join(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789-_./=:,+@%") == std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

}  // namespace mxc::regress
