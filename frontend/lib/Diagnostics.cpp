#include "vtac/frontend/Diagnostics.h"

namespace vtac::frontend {

void DiagnosticEngine::error(ir::SourceLoc location, std::string message) {
  if (errorCount_ > errorLimit_)
    return;
  if (errorCount_++ == errorLimit_) {
    diagnostics_.push_back({ir::Severity::Note, {location.file, 0, 0},
                            "too many errors (limit " + std::to_string(errorLimit_) +
                                "), stopping"});
    return;
  }
  diagnostics_.push_back({ir::Severity::Error, location, std::move(message)});
}

std::string DiagnosticEngine::render() const {
  std::string text;
  for (const Diagnostic &diagnostic : diagnostics_)
    text += ir::formatDiagnostic(diagnostic.location, diagnostic.severity, diagnostic.message);
  return text;
}

} // namespace vtac::frontend
