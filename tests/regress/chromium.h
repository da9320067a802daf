#pragma once
// Loads a page in Debian's headless Chromium and returns the DOM after its
// scripts ran, plus Chromium's log (console messages included).
#include <string>

namespace mxc::testing {

struct BrowserResult {
  int exit_code = -1;
  std::string dom;
  std::string log;
};

inline const char* kChromium = "/usr/bin/chromium";

/// `url` e.g. "file:///tmp/x/report.html#selftest"; `work_dir` holds the
/// throw-away profile and the captured output.
BrowserResult load_in_chromium(const std::string& url, const std::string& work_dir);

/// Text content of the element with this id in serialized HTML, entities
/// &amp; &lt; &gt; &quot; decoded; "" when absent.
std::string element_text(const std::string& dom, const std::string& id);

}  // namespace mxc::testing
