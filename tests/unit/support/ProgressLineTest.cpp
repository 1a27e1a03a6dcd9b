// support::ProgressLine: redrawn in place on a terminal, a line a second at most elsewhere.
#include <sstream>

#include <catch2/catch.hpp>

#include "vtac/support/ProgressLine.h"

using vtac::support::ProgressLine;

TEST_CASE("a progress line as plain lines shows one a second, and the final state", "[support][progress]") {
  std::ostringstream out;
  {
    ProgressLine line(out, ProgressLine::Style::Lines);
    line.update("1/3");
    line.update("2/3");  // within the second: not shown
    line.update("3/3", /*force=*/true);
  }
  CHECK(out.str() == "1/3\n3/3\n");
}

TEST_CASE("a terminal's progress line is redrawn in place and cleared at the end", "[support][progress]") {
  std::ostringstream out;
  ProgressLine line(out, ProgressLine::Style::Terminal);
  line.update("1/2");
  line.update("2/2");
  line.finish();
  CHECK(out.str() == "\r\033[K1/2\r\033[K2/2\r\033[K");
}

TEST_CASE("an Off progress line writes nothing", "[support][progress]") {
  std::ostringstream out;
  ProgressLine line(out, ProgressLine::Style::Off);
  line.update("1/2", true);
  line.finish();
  CHECK_FALSE(line.enabled());
  CHECK(out.str().empty());
}

TEST_CASE("percentages round down and reach 100% only when done", "[support][progress]") {
  CHECK(ProgressLine::percent(1, 3) == " (33%)");
  CHECK(ProgressLine::percent(999, 1000) == " (99%)");
  CHECK(ProgressLine::percent(1000, 1000) == " (100%)");
  CHECK(ProgressLine::percent(5, 0).empty());  // unknown total
}
