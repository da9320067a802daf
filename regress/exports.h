#pragma once
// Plain exports of a report's data: CSV (one row per test) and JSON (the
// same data the HTML page carries).
#include <ostream>
#include <string>

#include "regress/report_data.h"

namespace mxc::regress {

/// `text` after clean_text, with RFC 4180 quoting when needed.
std::string csv_field(const std::string& text);

void write_csv(const ReportData& d, std::ostream& out);
void write_csv_file(const ReportData& d, const std::string& path);
void write_json_file(const ReportData& d, const std::string& path);

}  // namespace mxc::regress
