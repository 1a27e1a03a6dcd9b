#include "AsciiCharStream.h"

namespace vtac::frontend {

bool AsciiCharStream::isAscii(std::string_view text) {
  for (char c : text)
    if (static_cast<unsigned char>(c) >= 0x80)
      return false;
  return true;
}

void AsciiCharStream::consume() {
  if (position_ >= text_.size())
    throw antlr4::IllegalStateException("cannot consume EOF");
  ++position_;
}

// LA(1) is the current character, LA(-1) the previous one; EOF beyond either end.
size_t AsciiCharStream::LA(ssize_t offset) {
  if (offset == 0)
    return 0;
  ssize_t at = static_cast<ssize_t>(position_) + (offset > 0 ? offset - 1 : offset);
  if (at < 0 || at >= static_cast<ssize_t>(text_.size()))
    return antlr4::IntStream::EOF;
  return static_cast<unsigned char>(text_[static_cast<size_t>(at)]);
}

std::string AsciiCharStream::getText(const antlr4::misc::Interval &interval) {
  if (interval.a < 0 || interval.b < interval.a || static_cast<size_t>(interval.a) >= text_.size())
    return "";
  size_t start = static_cast<size_t>(interval.a);
  size_t stop = std::min(static_cast<size_t>(interval.b), text_.size() - 1);
  return std::string(text_.substr(start, stop - start + 1));
}

} // namespace vtac::frontend
