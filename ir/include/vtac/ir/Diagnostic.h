// The error type of every library below the driver (passes, backend): a message with an
// optional source location.
//
// Rendered (by llvm::toString or renderError) as the IR's `file:line:col: error: message`
// followed by the source line and a caret, or `error: message` without a location, so the
// driver prints every pass and backend error the same way the frontend prints its diagnostics.
#pragma once

#include <string>

#include <llvm/Support/Error.h>

#include "vtac/ir/SourceLoc.h"

namespace vtac::ir {

class DiagnosticError : public llvm::ErrorInfo<DiagnosticError> {
public:
  static char ID;
  DiagnosticError(SourceLoc loc, std::string message, Severity severity = Severity::Error, std::string file = "")
      : loc_(loc), message_(std::move(message)), severity_(severity), file_(std::move(file)) {}

  const SourceLoc &loc() const { return loc_; }
  const std::string &text() const { return message_; }
  Severity severity() const { return severity_; }

  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  SourceLoc loc_;
  std::string message_;
  Severity severity_;  // a note that goes with errors (a frontend's "too many errors") is one too
  std::string file_;   // the file an error without a location is about: `file: error: message`
};

llvm::Error diagnosticError(SourceLoc loc, const llvm::Twine &message);
llvm::Error diagnosticError(const llvm::Twine &message);
// An error about a whole file (one that cannot be read), rendered as `file: error: message`.
llvm::Error fileError(llvm::StringRef file, const llvm::Twine &message);

// The message of an error without location or "error:" prefix (for wrapping it in another).
std::string errorMessage(llvm::Error error);

// The text to print for any error: DiagnosticErrors as described above, other errors as
// "error: <message>"; always ends with a newline.
std::string renderError(llvm::Error error);

}  // namespace vtac::ir
