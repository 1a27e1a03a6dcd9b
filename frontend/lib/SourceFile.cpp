#include "vtac/frontend/SourceFile.h"

#include "vtac/support/BoundedRead.h"

#include <iterator>
#include <sstream>

namespace vtac::frontend {

static size_t utf8SequenceLength(std::string_view text, size_t i);

// The text diagnostics quote: bytes that are not UTF-8 become '?', so that an
// error about a binary file does not write raw bytes to the terminal.
static std::string displayText(const std::string &text) {
  std::string shown;
  shown.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t length = utf8SequenceLength(text, i);
    if (length == 0) {
      shown += '?';
      ++i;
    } else {
      shown.append(text, i, length);
      i += length;
    }
  }
  return shown;
}

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  id_ = ir::registerSourceFile(name_, firstInvalidUtf8().isKnown() ? displayText(text_) : text_);
}

// Length of the UTF-8 sequence starting at text[i], or 0 when it is malformed
// (overlong forms and surrogates included, as the ANTLR decoder rejects them).
static size_t utf8SequenceLength(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  if (lead < 0x80)
    return 1;
  size_t length;
  uint32_t codePoint;
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    codePoint = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    codePoint = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    codePoint = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size())
    return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80)
      return 0;
    codePoint = (codePoint << 6) | (byte(i + k) & 0x3F);
  }
  static const uint32_t minimumForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  if (codePoint < minimumForLength[length] || codePoint > 0x10FFFF ||
      (codePoint >= 0xD800 && codePoint <= 0xDFFF))
    return 0;
  return length;
}

ir::SourceLoc SourceFile::firstInvalidUtf8() const {
  uint32_t line = 1, column = 1;
  for (size_t i = 0; i < text_.size();) {
    size_t length = utf8SequenceLength(text_, i);
    if (length == 0)
      return at(line, column);
    if (text_[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += length;
  }
  return {};
}

bool readSourceFile(const std::string &path, std::string &contents, std::string &error) {
  llvm::Expected<std::string> read = support::readWholeFile(path, kMaxSourceBytes, "program text");
  if (!read) {
    error = llvm::toString(read.takeError());
    return false;
  }
  contents = std::move(*read);
  return true;
}

} // namespace vtac::frontend
