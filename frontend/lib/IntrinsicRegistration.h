// `tir.TensorIntrin.register("name", desc, impl)` (also `tvm.tir.TensorIntrin.register`) at the
// top level of a file, as the MLC course registers tmm16: records the registration (the
// prim_funcs are looked up once the whole file is read).
#pragma once

#include "TVMScriptParser.h"
#include "vtac/frontend/Diagnostics.h"
#include "vtac/frontend/Frontend.h"
#include "vtac/frontend/SourceFile.h"

#include <vector>

namespace vtac::frontend {

/// True when `stmt` is such a registration (appended to `registrations`, or reported when its
/// arguments are not a string and two names).
bool readIntrinsicRegistration(const SourceFile &file, DiagnosticEngine &diagnostics,
                               grammar::TVMScriptParser::Small_stmtContext *stmt,
                               std::vector<TensorIntrinRegistration> &registrations);

} // namespace vtac::frontend
