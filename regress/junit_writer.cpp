#include "regress/junit_writer.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string_view>

#include "models/core/output_file.h"
#include "models/core/utf8.h"

namespace mxc::regress {

namespace {

std::string seconds(double s) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(3) << s;
  return o.str();
}

// "smoke.gemm_4x4" and "m=16/seed=1": a group per class, so the CI's test
// tree groups like the suite does.
std::pair<std::string, std::string> split_id(const std::string& suite, const std::string& id) {
  const auto slash = id.find('/');
  if (slash == std::string::npos) return {suite, id};
  return {suite + "." + id.substr(0, slash), id.substr(slash + 1)};
}

void property(std::ostream& out, const char* name, const std::string& value) {
  out << "        <property name=\"" << name << "\" value=\"" << xml_escape(value, true) << "\"/>\n";
}

// The element of a test's outcome, none for a pass. A status no run writes
// (a damaged database) is an error naming it, as the counts take it.
void write_outcome(std::ostream& out, const TestRecord& t, const std::string& repro) {
  if (t.status == "pass") return;
  if (t.status == "skipped") {
    out << "      <skipped message=\"" << xml_escape(t.message, true) << "\"/>\n";
    return;
  }
  const bool fail = t.status == "fail", known = fail || t.status == "error";
  const std::string message =
      known ? t.message : "unknown status '" + t.status + "'" + (t.message.empty() ? "" : ": " + t.message);
  const char* tag = fail ? "failure" : "error";
  // A failure the checker found is a mismatch; one it did not (a deadlocked
  // fabric, a mutation not detected) is named by its message alone.
  const bool mismatch = t.mismatch_count.value_or(0) > 0;
  const char* type = !known ? "unknown-status" : !fail ? "run" : mismatch ? "mismatch" : "failure";
  out << "      <" << tag << " message=\"" << xml_escape(message, true) << "\" type=\"" << type << "\">"
      << xml_escape(message + "\n" + repro + "\nlogs: " + t.log_dir) << "</" << tag << ">\n";
}

void write_testcase(std::ostream& out, const std::string& suite, const TestRecord& t) {
  const auto [cls, name] = split_id(suite, t.test_id);
  out << "    <testcase classname=\"" << xml_escape(cls, true) << "\" name=\"" << xml_escape(name, true) << "\" time=\""
      << seconds(t.wall_seconds) << "\">\n";
  out << "      <properties>\n";
  property(out, "seed", t.seed.empty() ? "n/a" : t.seed);
  property(out, "cycles", t.cycles_rtl ? std::to_string(*t.cycles_rtl) : "n/a");
  property(out, "cycles_model", t.cycles_model ? std::to_string(*t.cycles_model) : "n/a");
  property(out, "wall_seconds", seconds(t.wall_seconds));
  out << "      </properties>\n";
  const std::string repro = "reproduce: " + t.command;
  write_outcome(out, t, repro);
  out << "      <system-out>" << xml_escape(repro) << "</system-out>\n";
  out << "    </testcase>\n";
}

}  // namespace

std::string clean_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    // Report files say they are UTF-8, and CI servers' parsers reject a
    // JUnit file whole for one byte that is not (a file name, a test's
    // output). U+FFFE and U+FFFF are UTF-8 but no XML character either.
    if (const std::size_t n = utf8_char_length(text, i); n != 1) {
      const std::string_view ch = std::string_view(text).substr(i, std::max<std::size_t>(n, 1));
      out += n == 0 || ch == "\xef\xbf\xbe" || ch == "\xef\xbf\xbf" ? std::string_view("\xef\xbf\xbd") : ch;  // U+FFFD
      i += ch.size();
      continue;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    out += c < 0x20 && c != '\n' && c != '\t' && c != '\r' ? '?' : static_cast<char>(c);
    ++i;
  }
  return out;
}

std::string console_text(const std::string& text) {
  const std::string clean = clean_text(text);
  std::string out;
  out.reserve(clean.size());
  for (std::size_t i = 0; i < clean.size(); ++i) {
    const auto c = static_cast<unsigned char>(clean[i]);
    // C1 controls (U+0080 to U+009F, such as the one-byte CSI) act on a terminal as ESC sequences do.
    if (c == 0xc2 && i + 1 < clean.size() && static_cast<unsigned char>(clean[i + 1]) <= 0x9f) {
      out += '?';
      ++i;
    } else {
      out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
    }
  }
  return out;
}

std::string xml_escape(const std::string& text, bool attribute) {
  const std::string clean = clean_text(text);
  std::string out;
  out.reserve(clean.size());
  for (const char c : clean) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      // A parser reads a raw tab, newline or carriage return in an attribute as a space.
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\r': out += attribute ? "&#13;" : "\r"; break;
      default: out += c;
    }
  }
  return out;
}

void write_junit(const ReportData& d, std::ostream& out) {
  double total_wall = 0;
  for (const auto& t : d.tests) total_wall += t.wall_seconds;
  const ReportTotals n = report_totals(d);
  const std::string counts = "tests=\"" + std::to_string(n.total) + "\" failures=\"" + std::to_string(n.fail) +
                             "\" errors=\"" + std::to_string(n.error) + "\"";
  const std::string time = " time=\"" + seconds(total_wall) + "\"";
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  // The Jenkins xUnit schema allows no `skipped` on <testsuites>, only on <testsuite>.
  out << "<testsuites name=\"mxcosim regress\" " << counts << time << ">\n";
  out << "  <testsuite name=\"" << xml_escape(d.run.suite, true) << "\" " << counts << " skipped=\""
      << n.skipped << "\"" << time << " timestamp=\"" << xml_escape(d.run.started_at.substr(0, 19), true)
      << "\" hostname=\"" << xml_escape(d.run.host.empty() ? "localhost" : d.run.host, true) << "\">\n";
  out << "    <properties>\n";
  out << "      <property name=\"rev\" value=\"" << xml_escape(d.run.rev, true) << "\"/>\n";
  out << "      <property name=\"label\" value=\"" << xml_escape(d.run.label, true) << "\"/>\n";
  out << "      <property name=\"state\" value=\"" << xml_escape(d.run.state, true) << "\"/>\n";
  out << "    </properties>\n";
  for (const auto& t : d.tests) write_testcase(out, d.run.suite, t);
  for (std::size_t i = 0; i < d.not_run.size(); ++i) {
    const auto [cls, name] = split_id(d.run.suite, d.not_run[i]);
    const std::string why = not_run_reason(d, i);
    out << "    <testcase classname=\"" << xml_escape(cls, true) << "\" name=\"" << xml_escape(name, true)
        << "\" time=\"0.000\">\n";
    out << "      <error message=\"" << xml_escape(why, true) << "\" type=\"not-run\">" << xml_escape(why)
        << "</error>\n";
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

void write_junit_file(const ReportData& d, const std::string& path) {
  std::ostringstream out;
  write_junit(d, out);
  write_output_file(path, out.str());
}

}  // namespace mxc::regress
