#include "cli_args.h"

namespace mxc::app {

NormalizedArgs::NormalizedArgs(int argc, char** argv, std::string_view letters) {
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    const bool one_letter_long = i > 0 && a.size() >= 3 && a.compare(0, 2, "--") == 0 &&
                                 letters.find(a[2]) != std::string_view::npos && (a.size() == 3 || a[3] == '=');
    if (!one_letter_long) {
      m_args.push_back(std::move(a));
      continue;
    }
    m_args.push_back(std::string("-") + a[2]);
    if (a.size() > 3) m_args.push_back(a.substr(4));
  }
  for (auto& s : m_args) m_ptrs.push_back(s.data());
}

}  // namespace mxc::app
