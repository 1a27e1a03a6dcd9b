// Which top-level statement is a schedule: an undecorated `def` whose first parameter is `sch`
// (see TraceReader.h). The module reader skips these; the trace reader reads them.
#pragma once

#include "TVMScriptParser.h"

namespace vtac::frontend {

/// The def of `stmt` when it is a schedule def, else null.
grammar::TVMScriptParser::FuncdefContext *scheduleDefinition(grammar::TVMScriptParser::StmtContext *stmt);

} // namespace vtac::frontend
