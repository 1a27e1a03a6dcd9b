// AsciiCharStream: an ANTLR character stream that reads an ASCII text in
// place. ANTLR's own ANTLRInputStream decodes the input into a UTF-32 copy
// (4 bytes per character); for the usual all-ASCII source file bytes and code
// points coincide, so the lexer can read the file's own buffer instead.
#pragma once

#include <antlr4-runtime.h>

#include <string>
#include <string_view>

namespace vtac::frontend {

class AsciiCharStream : public antlr4::CharStream {
public:
  /// `text` must be ASCII and outlive the stream.
  AsciiCharStream(std::string_view text, std::string name)
      : text_(text), name_(std::move(name)) {}

  static bool isAscii(std::string_view text);

  void consume() override;
  size_t LA(ssize_t offset) override;
  ssize_t mark() override { return -1; }
  void release(ssize_t) override {}
  size_t index() override { return position_; }
  void seek(size_t index) override { position_ = std::min(index, text_.size()); }
  size_t size() override { return text_.size(); }
  std::string getSourceName() const override { return name_; }
  std::string getText(const antlr4::misc::Interval &interval) override;
  std::string toString() const override { return std::string(text_); }

private:
  std::string_view text_;
  std::string name_;
  size_t position_ = 0;
};

} // namespace vtac::frontend
