// Which top-level statement is a schedule: an undecorated `def` whose first parameter is `sch`
// (see TraceReader.h). The module reader skips these; the trace reader reads them.
#pragma once

#include "TVMScriptParser.h"
#include "vtac/frontend/Diagnostics.h"
#include "vtac/frontend/SourceFile.h"
#include "vtac/ir/Trace.h"

#include <optional>

namespace vtac::frontend {

/// The def of `stmt` when it is a schedule def, else null.
grammar::TVMScriptParser::FuncdefContext *scheduleDefinition(grammar::TVMScriptParser::StmtContext *stmt);

/// The trace of a schedule def; nullopt after reporting errors.
std::optional<ir::Trace> buildTrace(const SourceFile &file, DiagnosticEngine &diagnostics,
                                    grammar::TVMScriptParser::FuncdefContext *def);

} // namespace vtac::frontend
