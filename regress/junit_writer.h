#pragma once
// JUnit XML in the shape Jenkins' junit step and GitLab's junit artifacts
// read: one <testsuite> per run; per testcase the seed, simulated cycles and
// wall time; failures carry the mismatch and the reproduce command.
#include <ostream>
#include <string>

#include "regress/report_data.h"

namespace mxc::regress {

/// Text as every report file carries it: each ill-formed UTF-8 sequence
/// (and U+FFFE, U+FFFF) becomes U+FFFD, each control byte other than
/// newline, tab and carriage return '?'.
std::string clean_text(const std::string& text);

/// Text as a terminal line shows it: clean_text with every control
/// character ('\n', '\r' and '\t' included, the C1 ones too) written '?',
/// so a test's output cannot move the cursor or rewrite the console's lines.
std::string console_text(const std::string& text);

/// Escapes text for XML attributes and content after clean_text: XML 1.0
/// cannot carry what it replaces. In an `attribute` tab, newline and
/// carriage return are character references, which a parser keeps (raw, it
/// reads them as spaces).
std::string xml_escape(const std::string& text, bool attribute = false);

void write_junit(const ReportData& d, std::ostream& out);
/// Writes to `path`; throws naming the path on failure.
void write_junit_file(const ReportData& d, const std::string& path);

}  // namespace mxc::regress
