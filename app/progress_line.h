#pragma once
// The one progress line a long command keeps redrawing on standard error
// ("\r" and the new text), cleared when the command ends or gives up, so
// that what it prints next starts on a clean line.
#include <algorithm>
#include <iostream>
#include <string>

namespace mxc::app {

class ProgressLine {
 public:
  ProgressLine() = default;
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { clear(); }

  void show(const std::string& text) {
    // Padded to the longest line shown, so a shorter one leaves nothing of it behind.
    m_shown = std::max(m_shown, text.size());
    std::cerr << "\r" << text << std::string(m_shown - text.size(), ' ') << std::flush;
  }
  void clear() {
    if (m_shown) std::cerr << "\r" << std::string(m_shown, ' ') << "\r" << std::flush;
    m_shown = 0;
  }

 private:
  std::size_t m_shown = 0;
};

}  // namespace mxc::app
