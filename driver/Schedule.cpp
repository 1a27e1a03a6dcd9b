#include "Schedule.h"

#include "vtac/frontend/TraceReader.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/schedule/ApplyTrace.h"

namespace vtac::driver {

bool applyModuleSchedule(frontend::ParsedModule &parsed, const std::string &schedulePath, std::string *printedTrace,
                         std::ostream &errors) {
  std::optional<ir::Trace> trace = parsed.schedule;
  if (!schedulePath.empty()) {
    std::string text, reason;
    if (!frontend::readSourceFile(schedulePath, text, reason)) {
      errors << schedulePath << ": error: cannot read file: " << reason << "\n";
      return false;
    }
    frontend::SourceFile file(schedulePath, std::move(text));
    frontend::DiagnosticEngine diagnostics;
    trace = frontend::readTrace(file, diagnostics);
    errors << diagnostics.render();
    if (diagnostics.hasErrors()) return false;
    if (!trace) {
      errors << ir::formatDiagnostic(file.at(1, 1), ir::Severity::Error,
                                     "no schedule def (a top-level `def` taking `sch`) in this file");
      return false;
    }
  }
  if (printedTrace) printedTrace->clear();
  if (!trace) return true;
  ir::IRModule scheduled = parsed.module;
  llvm::Expected<ir::Trace> applied = passes::schedule::applyTrace(scheduled, *trace);
  if (!applied) {
    errors << ir::renderError(applied.takeError());
    return false;
  }
  parsed.module = std::move(scheduled);
  if (printedTrace) *printedTrace = ir::printTrace(*applied);
  return true;
}

}  // namespace vtac::driver
