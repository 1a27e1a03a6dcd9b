// SourceFile: the text of one input, registered with the IR's source registry so
// that every location the frontend attaches to a node (and every diagnostic)
// can be printed with its source line. Also checks that the bytes are UTF-8,
// which the ANTLR runtime needs (it would throw on anything else).
#pragma once

#include "vtac/ir/SourceLoc.h"

#include <string>

namespace vtac::frontend {

class SourceFile {
public:
  SourceFile(std::string name, std::string text);

  const std::string &name() const { return name_; }
  const std::string &text() const { return text_; }
  /// The id of this file in the IR's source registry.
  uint32_t id() const { return id_; }

  /// A location in this file (line and column from 1, columns in code points).
  ir::SourceLoc at(size_t line, size_t column) const {
    return {id_, static_cast<uint32_t>(line), static_cast<uint32_t>(column)};
  }

  /// Where the first byte that is not valid UTF-8 sits; an unknown location
  /// when the whole text is valid.
  ir::SourceLoc firstInvalidUtf8() const;

private:
  std::string name_;
  std::string text_;
  uint32_t id_ = 0;
};

/// Program text larger than this is refused (the largest lowered module is a few MiB).
constexpr size_t kMaxSourceBytes = size_t(64) << 20;

/// Reads `path` ("-" is standard input). On failure returns false and sets
/// `error` to the reason (e.g. "No such file or directory", "file too large ...").

bool readSourceFile(const std::string &path, std::string &contents, std::string &error);

} // namespace vtac::frontend
