#include "regress/html_report.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "cosim/json_text.h"
#include "models/core/output_file.h"
#include "regress/junit_writer.h"

#ifndef MXCOSIM_REPORT_ASSETS_DIR
#define MXCOSIM_REPORT_ASSETS_DIR "regress/report"
#endif

namespace mxc::regress {

namespace {

// The files the page inlines, relative to the assets folder, and what to
// do when one is missing.
struct Asset {
  const char* path;
  const char* hint;
};
constexpr Asset kChart{"node_modules/chart.js/dist/chart.umd.js",
                       " (the charting library: run scripts/install-deps.sh, which runs "
                       "`npm ci --omit=dev` in regress/report)"};
constexpr Asset kScript{"report.js", ""};
constexpr Asset kStyle{"report.css", ""};

std::string read_asset(const std::filesystem::path& dir, const Asset& asset) {
  const std::filesystem::path p = dir / asset.path;
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("report asset '" + p.string() + "' is missing" + asset.hint);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

void check_report_assets(const std::string& assets_dir) {
  for (const Asset& asset : {kChart, kScript, kStyle}) read_asset(assets_dir, asset);
}

std::string report_assets_dir() {
  if (const char* env = std::getenv("MXCOSIM_REPORT_ASSETS"); env && *env) return env;
  return MXCOSIM_REPORT_ASSETS_DIR;
}

std::string script_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += '\\';
  }
  return out;
}

std::string json_in_html(const std::string& json) {
  std::string out;
  out.reserve(json.size() + 16);
  for (char c : json) {
    // JSON has '<' only inside strings, where \u003c reads back the same.
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

void write_html(const ReportData& d, std::ostream& out, const std::string& assets_dir) {
  const std::filesystem::path dir(assets_dir);
  const std::string chart = read_asset(dir, kChart);
  const std::string script = read_asset(dir, kScript);
  const std::string style = read_asset(dir, kStyle);
  const std::string title = "mxcosim correlation report: " + d.run.suite + " @ " + d.run.rev.substr(0, 12) + " (" +
                            d.run.label + ")";
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << xml_escape(title) << "</title>\n"
      // First of all, so that errors in anything after it are seen too.
      << "<script>window.__reportErrors=[];window.addEventListener('error',function(e){"
         "window.__reportErrors.push(String(e.message||e));});(function(){var f=console.error;"
         "console.error=function(){window.__reportErrors.push(Array.prototype.join.call(arguments,' '));"
         "return f.apply(console,arguments);};})();</script>\n"
      << "<style>\n" << style << "\n</style>\n</head>\n<body>\n"
      << "<header><h1>" << xml_escape(title) << "</h1><div id=\"run-meta\"></div></header>\n"
      << "<section id=\"regressions\"></section>\n"
      << "<section id=\"summary\"></section>\n"
      << "<section class=\"charts\">\n"
      << "  <figure><figcaption>Model vs RTL cycles</figcaption><div class=\"chart\"><canvas id=\"chart-scatter\">"
         "</canvas></div><p class=\"note\" id=\"note-scatter\" hidden></p></figure>\n"
      << "  <figure><figcaption>Model error distribution (%)</figcaption><div class=\"chart\"><canvas "
         "id=\"chart-hist\"></canvas></div><p class=\"note\" id=\"note-hist\" hidden></p></figure>\n"
      << "  <figure><figcaption>Utilisation and bandwidth per test</figcaption><div class=\"chart\"><canvas "
         "id=\"chart-util\"></canvas></div><p class=\"note\" id=\"note-util\" hidden></p></figure>\n"
      << "  <figure><figcaption>Trend across runs</figcaption><div class=\"chart\"><canvas id=\"chart-trend\">"
         "</canvas></div><p class=\"note\" id=\"note-trend\" hidden></p></figure>\n"
      << "</section>\n"
      << "<section id=\"table-section\"><h2>Tests</h2>\n"
      << "  <div class=\"controls\"><input id=\"filter\" type=\"search\" placeholder=\"filter: id, message, tag\">"
         "<select id=\"status-filter\"><option value=\"\">all statuses</option><option>pass</option>"
         "<option>fail</option><option>error</option><option>skipped</option></select>"
         "<span id=\"shown-count\"></span><button id=\"export-csv\">CSV</button>"
         "<button id=\"export-json\">JSON</button></div>\n"
      << "  <table id=\"tests\"><thead></thead><tbody></tbody></table>\n</section>\n"
      << "<pre id=\"selftest\" hidden></pre>\n"
      << "<script id=\"report-data\" type=\"application/json\">" << json_in_html(json_text(to_json(d))) << "</script>\n"
      << "<script>\n" << script_safe(chart) << "\n</script>\n"
      << "<script>\n" << script_safe(script) << "\n</script>\n"
      << "</body>\n</html>\n";
}

void write_html_file(const ReportData& d, const std::string& path, const std::string& assets_dir) {
  std::ostringstream page;
  write_html(d, page, assets_dir);  // assets first: a missing one leaves no half-written file
  write_output_file(path, page.str());
}

}  // namespace mxc::regress
