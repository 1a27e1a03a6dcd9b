// The frontend: TVMScript text -> IR module.
//
// parseModule reads one source file: a module class (`@I.ir_module class M:`)
// or bare `@T.prim_func` / `@R.function` defs (a module of one function each).
// Every function is built into the IR (Relax functions by the
// RelaxFunctionBuilder, whose calls are then checked against their callees).
// Errors go into the DiagnosticEngine; the result is empty when there were any.
#pragma once

#include "vtac/frontend/Diagnostics.h"
#include "vtac/frontend/SourceFile.h"
#include "vtac/ir/Function.h"
#include "vtac/ir/Trace.h"

#include <optional>
#include <string>
#include <vector>

namespace vtac::frontend {

struct ParsedModule {
  ir::IRModule module;
  /// The class name of an `@I.ir_module` class; empty for bare functions.
  std::string className;
  /// The file's schedule def (a top-level `def` taking `sch`, see TraceReader.h), if any.
  std::optional<ir::Trace> schedule;
};

std::optional<ParsedModule> parseModule(const SourceFile &file, DiagnosticEngine &diagnostics);

} // namespace vtac::frontend
