#include "vtac/frontend/Diagnostics.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::frontend {

void DiagnosticEngine::error(ir::SourceLoc location, std::string message) {
  if (limitReached())
    return;
  ++errorCount_;
  diagnostics_.push_back({ir::Severity::Error, location, std::move(message)});
  // Like clang: say so as soon as the limit is hit, since reporting stops here.
  if (limitReached())
    diagnostics_.push_back({ir::Severity::Note, {location.file, 0, 0},
                            "too many errors (limit " + std::to_string(errorLimit_) +
                                "), stopping"});
}

std::string DiagnosticEngine::render() const {
  std::string text;
  for (const Diagnostic &diagnostic : diagnostics_)
    text += ir::formatDiagnostic(diagnostic.location, diagnostic.severity, diagnostic.message);
  return text;
}

llvm::Error DiagnosticEngine::toError() const {
  llvm::Error all = llvm::Error::success();
  for (const Diagnostic &diagnostic : diagnostics_)
    all = llvm::joinErrors(std::move(all), llvm::make_error<ir::DiagnosticError>(
                                               diagnostic.location, diagnostic.message, diagnostic.severity));
  return all;
}

} // namespace vtac::frontend
