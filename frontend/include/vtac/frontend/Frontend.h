// The frontend: TVMScript text -> IR module.
//
// parseModule reads one source file: a module class (`@I.ir_module class M:`)
// or bare `@T.prim_func` defs (a module of one function each). Every prim_func
// is built into the IR; `@R.function` defs are parsed for syntax only and
// recorded by name, since the IR has no Relax functions yet. Errors go into the
// DiagnosticEngine; the result is empty when there were any.
#pragma once

#include "vtac/frontend/Diagnostics.h"
#include "vtac/frontend/SourceFile.h"
#include "vtac/ir/Function.h"

#include <optional>
#include <string>
#include <vector>

namespace vtac::frontend {

/// A function the frontend accepted without building it into the IR.
struct SkippedFunction {
  std::string name;
  ir::SourceLoc loc;
};

struct ParsedModule {
  ir::IRModule module;
  /// The class name of an `@I.ir_module` class; empty for bare functions.
  std::string className;
  /// `@R.function` defs, in source order.
  std::vector<SkippedFunction> relaxFunctions;
};

std::optional<ParsedModule> parseModule(const SourceFile &file, DiagnosticEngine &diagnostics);

} // namespace vtac::frontend
