#pragma once
// Reading a test's results.json defensively: fields that are missing or of
// the wrong type stay null; only a file that is not JSON at all is reported.
#include <cstdint>
#include <optional>
#include <string>

#include "regress/test_record.h"

namespace mxc::regress {

struct ResultsFile {
  bool parsed = false;            ///< False when absent or not a JSON object.
  std::string parse_error;
  std::optional<std::string> status, error, first_mismatch;
  std::optional<std::int64_t> mismatch_count;
};

/// Fills the extracted columns of `rec` (and rec.results_json) from `text`.
ResultsFile read_results_json(const std::string& text, TestRecord& rec);

/// Same, from a file; an absent file leaves `rec` untouched.
ResultsFile read_results_file(const std::string& path, TestRecord& rec);

}  // namespace mxc::regress
