// Parsing a file whose module holds @R.function defs as well as prim_funcs, until
// parseModule (Frontend.h) builds them itself: parseModule for the prim_funcs, then every
// @R.function def through the RelaxFunctionBuilder, then the call checks (checkRelaxCalls).
// Once Frontend.cpp dispatches @R.function defs to the builder, this is parseModule.
#pragma once

#include "vtac/frontend/Frontend.h"

namespace vtac::frontend {

std::optional<ParsedModule> parseModuleWithRelax(const SourceFile &file, DiagnosticEngine &diagnostics);

} // namespace vtac::frontend
