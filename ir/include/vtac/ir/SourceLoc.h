// Source locations carried by every IR node, and the registry of source files they point into.
//
// A location is three small integers (file id, line, column) so that nodes stay small; the file
// name and, when the frontend registered it, the file's text live in a process-wide registry.
// That lets any library (verifier, interpreter, passes) print `file:line:col: error: message`
// followed by the source line and a caret without knowing who parsed the file.
#pragma once

#include <cstdint>
#include <string>

#include <llvm/ADT/StringRef.h>

namespace vtac::ir {

struct SourceLoc {
  uint32_t file = 0;  // 0: no file (built by a pass, or by hand)
  uint32_t line = 0;  // 1-based; 0: unknown
  uint32_t column = 0;  // 1-based; 0: unknown

  bool isKnown() const { return line != 0; }
  friend bool operator==(const SourceLoc &a, const SourceLoc &b) {
    return a.file == b.file && a.line == b.line && a.column == b.column;
  }
};

// Registers a file (name + full text) and returns its id (>= 1). Registering the same name twice
// returns a fresh id, so a re-read file never shows stale text. Thread-safe.
uint32_t registerSourceFile(llvm::StringRef name, std::string text);
// A location for code copied from `origin` into a program at `at` (as tensorize inserts an
// intrinsic's implementation at the user's tensorize step, like a macro expansion): it reads as
// `at` (same file name, line and column), and a diagnostic there adds a note at `origin` with
// `note` as its message. One registry entry per call: callers cache by origin.
SourceLoc expansionLoc(const SourceLoc &at, const SourceLoc &origin, std::string note);

// The registered name, or "<unknown>" for id 0 or an unknown id.
std::string sourceFileName(uint32_t file);
// Text of 1-based line `line` without its newline, or "" when not available.
std::string sourceLine(uint32_t file, uint32_t line);

enum class Severity { Error, Warning, Note, Remark };  // Remark: what a pass chose (clang's -Rpass)

// "file:line:col: error: message\n<source line>\n<spaces>^\n" — the source line and caret are
// present only when the location is known and the file text was registered.
// Without a location: "error: message\n".
std::string formatDiagnostic(const SourceLoc &loc, Severity severity, llvm::StringRef message);

}  // namespace vtac::ir
