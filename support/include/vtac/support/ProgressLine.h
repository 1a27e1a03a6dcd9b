// The progress line of long work (`vtac run` on the interpreter, `vtac tune`, `vtac compile` of
// many inputs) on standard error. On a terminal it is redrawn in place and cleared at the end;
// anywhere else (a log, make's output) it is drawn only when asked for (`--progress`), as one
// line per update at most once a second, so that a log grows by a line a second at most.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace vtac::support {

// The help of the `--progress` flag of the commands that draw one.
inline constexpr const char *kProgressFlagHelp =
    "Draw the progress line even when standard error is not a terminal (then as a line a second at "
    "most, for logs and make's output)";

class ProgressLine {
public:
  enum class Style { Off, Terminal, Lines };

  // Terminal when standard error is one, else Lines when `forced` (--progress), else Off.
  static Style styleForStderr(bool forced);

  ProgressLine(std::ostream &out, Style style) : out_(out), style_(style) {}
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

  bool enabled() const { return style_ != Style::Off; }
  // Shows `text`: on a terminal each time, as plain lines only once a second has passed since
  // the last (`force`: the final state, shown whatever the time).
  void update(const std::string &text, bool force = false);
  // Ends a terminal's line (cleared, so that what follows starts at the left edge).
  void finish();

  // " (37%)": `done` of `total` as a whole percentage, rounded down (100% only when done).
  static std::string percent(uint64_t done, uint64_t total);

private:
  std::ostream &out_;
  Style style_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace vtac::support
