#include "regress/exports.h"

#include <sstream>

#include "cosim/json_text.h"
#include "models/core/output_file.h"
#include "regress/junit_writer.h"

namespace mxc::regress {

namespace {
template <class T>
std::string opt(const std::optional<T>& v) {
  if (!v) return "";
  std::ostringstream o;
  o.precision(10);
  o << *v;
  return o.str();
}
}  // namespace

std::string csv_field(const std::string& text) {
  // Cleaned as the JSON and XML files are: a test's output may hold any byte. A text that a
  // spreadsheet would take for a formula (= + - @ first: a group named =HYPERLINK(...)) is
  // kept as text with a leading apostrophe.
  std::string s = clean_text(text);
  if (!s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@')) s.insert(0, 1, '\'');
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_csv(const ReportData& d, std::ostream& out) {
  out << "suite,rev,label,test,status,message,seed,cycles_rtl,cycles_model,error_pct,wall_seconds,"
         "speed_cycles_per_s,utilisation,bandwidth_gbps,mismatch_count,command\n";
  for (const auto& t : d.tests) {
    out << csv_field(d.run.suite) << ',' << csv_field(d.run.rev) << ',' << csv_field(d.run.label) << ','
        << csv_field(t.test_id) << ',' << t.status << ',' << csv_field(t.message) << ',' << csv_field(t.seed) << ','
        << opt(t.cycles_rtl) << ',' << opt(t.cycles_model) << ',' << opt(model_error_pct(t)) << ','
        << opt(std::optional<double>(t.wall_seconds)) << ',' << opt(sim_speed(t)) << ',' << opt(t.utilisation)
        << ',' << opt(t.bandwidth_gbps) << ',' << opt(t.mismatch_count) << ',' << csv_field(t.command) << '\n';
  }
  // The planned tests without a result, as errors saying why: a spreadsheet
  // of an interrupted night must not hold only the tests that ran.
  for (std::size_t i = 0; i < d.not_run.size(); ++i) {
    out << csv_field(d.run.suite) << ',' << csv_field(d.run.rev) << ',' << csv_field(d.run.label) << ','
        << csv_field(d.not_run[i]) << ",error," << csv_field(not_run_reason(d, i)) << ",,,,,,,,,,\n";
  }
}

void write_csv_file(const ReportData& d, const std::string& path) {
  std::ostringstream out;
  write_csv(d, out);
  write_output_file(path, out.str());
}

void write_json_file(const ReportData& d, const std::string& path) {
  write_output_file(path, json_text(to_json(d), 1) + "\n");
}

}  // namespace mxc::regress
