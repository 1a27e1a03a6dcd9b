#include "vtac/support/ProgressLine.h"

#include <unistd.h>

#include <algorithm>

namespace vtac::support {

ProgressLine::Style ProgressLine::styleForStderr(bool forced) {
  if (isatty(STDERR_FILENO)) return Style::Terminal;
  return forced ? Style::Lines : Style::Off;
}

void ProgressLine::update(const std::string &text, bool force) {
  if (style_ == Style::Off) return;
  auto now = std::chrono::steady_clock::now();
  if (style_ == Style::Lines) {
    if (drawn_ && !force && now - last_ < std::chrono::seconds(1)) return;
    out_ << text << "\n" << std::flush;
  } else {
    out_ << "\r\033[K" << text << std::flush;
  }
  drawn_ = true;
  last_ = now;
}

void ProgressLine::finish() {
  if (style_ == Style::Terminal && drawn_) out_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

std::string ProgressLine::percent(uint64_t done, uint64_t total) {
  if (total == 0) return "";
  uint64_t whole = done >= total ? 100 : std::min<uint64_t>(99, done * 100 / total);
  return " (" + std::to_string(whole) + "%)";
}

}  // namespace vtac::support
