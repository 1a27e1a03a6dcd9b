#include "vtac/ir/Diagnostic.h"

#include <llvm/Support/raw_ostream.h>

#include "vtac/ir/DisplayText.h"

namespace vtac::ir {

char DiagnosticError::ID = 0;

void DiagnosticError::log(llvm::raw_ostream &os) const {
  std::string text = formatDiagnostic(loc_, severity_, message_);
  // llvm::toString adds no newline of its own; keep the rendered form free of a trailing one.
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!file_.empty()) os << displayText(file_) << ": ";
  os << text;
}

llvm::Error fileError(llvm::StringRef file, const llvm::Twine &message) {
  return llvm::make_error<DiagnosticError>(SourceLoc{}, message.str(), Severity::Error, file.str());
}

llvm::Error diagnosticError(ir::SourceLoc loc, const llvm::Twine &message) {
  return llvm::make_error<DiagnosticError>(loc, message.str());
}

llvm::Error diagnosticError(const llvm::Twine &message) {
  return llvm::make_error<DiagnosticError>(ir::SourceLoc{}, message.str());
}

std::string errorMessage(llvm::Error error) {
  std::string text;
  llvm::handleAllErrors(
      std::move(error),
      [&](const DiagnosticError &diagnostic) {
        text += (text.empty() ? "" : "; ") + diagnostic.text();
      },
      [&](const llvm::ErrorInfoBase &other) {
        text += (text.empty() ? "" : "; ") + other.message();
      });
  return text;
}

std::string renderError(llvm::Error error) {
  std::string text;
  llvm::handleAllErrors(
      std::move(error),
      [&](const DiagnosticError &diagnostic) {
        llvm::raw_string_ostream os(text);
        diagnostic.log(os);
        os << "\n";
      },
      // Other errors (a file's own bytes quoted by a reader, a library's message) are escaped
      // and cut like any diagnostic.
      [&](const llvm::ErrorInfoBase &other) { text += formatDiagnostic({}, Severity::Error, other.message()); });
  return text;
}

}  // namespace vtac::ir
