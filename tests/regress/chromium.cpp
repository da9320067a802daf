#include "chromium.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

#include "regress/outcome.h"
#include "tests/temp_dir.h"

namespace mxc::testing {

BrowserResult load_in_chromium(const std::string& url, const std::string& work_dir) {
  const std::string profile = work_dir + "/profile";
  std::filesystem::create_directories(profile);
  const std::string dom = work_dir + "/dom.html", log = work_dir + "/chromium.log";
  // No network, no sync, no updates: the page must work offline.
  const std::string cmd =
      mxc::regress::shell_join({kChromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                                "--disable-sync", "--disable-dev-shm-usage", "--enable-logging=stderr", "--v=0",
                                "--window-size=1400,1000", "--virtual-time-budget=5000",
                                "--user-data-dir=" + profile, "--dump-dom", url}) +
      " > " + mxc::regress::shell_join({dom}) + " 2> " + mxc::regress::shell_join({log});
  BrowserResult r;
  const int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.dom = read_text(dom);
  r.log = read_text(log);
  return r;
}

std::string element_text(const std::string& dom, const std::string& id) {
  const auto at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  const auto open_end = dom.find('>', at);
  const auto close = dom.find("</", open_end);
  if (open_end == std::string::npos || close == std::string::npos) return "";
  const std::string raw = dom.substr(open_end + 1, close - open_end - 1);
  static const std::pair<const char*, char> kEntities[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}};
  std::string out;
  for (std::size_t i = 0; i < raw.size();) {
    bool decoded = false;
    for (const auto& [ent, ch] : kEntities) {
      const std::string e(ent);
      if (raw.compare(i, e.size(), e) == 0) {
        out += ch;
        i += e.size();
        decoded = true;
        break;
      }
    }
    if (!decoded) out += raw[i++];
  }
  return out;
}

}  // namespace mxc::testing
