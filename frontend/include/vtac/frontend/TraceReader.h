// The schedule reader: TVM's trace text -> ir::Trace.
//
// A schedule is a top-level `def` without decorator whose first and only parameter is named
// `sch` (annotated or not: `def apply_trace(sch: tir.Schedule) -> None:`). Its body holds one
// step per line: `sch.<primitive>(args)`, optionally bound to names (`b0 = ...`,
// `l1, l2 = ...`, `l1, = ...`, `_` for an unused result) or indexed (`ax = sch.get_loops(b)[-1]`).
// Arguments are literals (ints, floats, strings, None, True, False, lists/tuples, dicts), names
// bound by earlier steps, or nested `sch.<primitive>(...)` calls (read as a step of their own
// just before, as the MLC course writes `sch.compute_inline(sch.get_block("B"))`); `pass`,
// docstrings and comments are allowed. Such a def may sit anywhere at the top level of a module
// file (the module reader skips it) or in a file of its own given with `--schedule`; a file holds
// at most one. Errors go to the DiagnosticEngine, located at the offending token.
#pragma once

#include "vtac/frontend/Diagnostics.h"
#include "vtac/frontend/SourceFile.h"
#include "vtac/ir/Trace.h"

#include <optional>

namespace vtac::frontend {

/// The file's schedule def as a trace (the file is read as a module file, so it may also hold
/// prim_funcs); nullopt with `hasErrors()` after an error, nullopt without errors when the file
/// holds no schedule def. parseModule gives a module file's own schedule def the same way
/// (ParsedModule::schedule).
std::optional<ir::Trace> readTrace(const SourceFile &file, DiagnosticEngine &diagnostics);

} // namespace vtac::frontend
