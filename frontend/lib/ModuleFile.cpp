#include "vtac/frontend/ModuleFile.h"

#include "vtac/ir/Printer.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Verifier.h"
#include "vtac/support/Stopwatch.h"

#include <spdlog/spdlog.h>

#include <cassert>

namespace vtac::frontend {

using support::Stopwatch;

llvm::Expected<ParsedModule> loadModule(const std::string &path) {
  std::string name = path == "-" ? "<stdin>" : path;
  std::string text, reason;
  if (!readSourceFile(path, text, reason)) return ir::fileError(name, "cannot read file: " + reason);
  Stopwatch parseTime;
  SourceFile file(name, std::move(text));
  DiagnosticEngine diagnostics;
  std::optional<ParsedModule> parsed = parseModule(file, diagnostics);
  spdlog::debug("{}: parsed in {:.1f} ms", name, parseTime.milliseconds());
  if (parsed) {
    Stopwatch verifyTime;
    for (const auto &entry : parsed->module.functions())
      if (auto *func = entry.function.as<ir::PrimFunc>())
        for (const ir::VerifierDiagnostic &problem : ir::verifyDiagnostics(*func))
          diagnostics.error(problem.loc, problem.message);
    spdlog::debug("{}: verified in {:.1f} ms", name, verifyTime.milliseconds());
  }
  if (diagnostics.hasErrors()) return diagnostics.toError();
  assert(parsed && "parseModule fails only with a diagnostic");
  return std::move(*parsed);
}

std::string printParsedModule(const ParsedModule &parsed) {
  const auto &functions = parsed.module.functions();
  if (parsed.className.empty() && functions.size() == 1)
    if (auto *func = functions[0].function.as<ir::PrimFunc>())
      return ir::printPrimFunc(*func, functions[0].name->name);
  return ir::printModule(parsed.module);
}

} // namespace vtac::frontend
