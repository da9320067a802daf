#pragma once
// The correlation report: one self-contained HTML file (data, charting
// library, script and style all inline) that opens offline.
#include <ostream>
#include <string>

#include "regress/report_data.h"

namespace mxc::regress {

/// Where report.js, report.css and node_modules/chart.js are: the
/// MXCOSIM_REPORT_ASSETS environment variable, else the folder configured
/// at build time.
std::string report_assets_dir();

/// Throws std::runtime_error, as write_html does, when an asset the page
/// inlines cannot be read: checked before a run, whose report would
/// otherwise fail only after every test ran.
void check_report_assets(const std::string& assets_dir = report_assets_dir());

/// Writes the page; throws std::runtime_error naming a missing asset (and
/// how to install it).
void write_html(const ReportData& d, std::ostream& out, const std::string& assets_dir = report_assets_dir());
void write_html_file(const ReportData& d, const std::string& path,
                     const std::string& assets_dir = report_assets_dir());

/// Makes code safe inside an inline <script>: "</" becomes "<\/".
std::string script_safe(const std::string& text);

/// Makes JSON text safe as the data of an inline <script>: every '<'
/// becomes \u003c, so no text of the data ("</script>", "<!--<script>")
/// can end the element or turn the rest of the page into script.
std::string json_in_html(const std::string& json);

}  // namespace mxc::regress
