// The schedule reader: a schedule def (TVM's trace text, or Python as TVM users write
// schedules) -> ir::Trace.
//
// A schedule is a top-level `def` without decorator whose first and only parameter is named
// `sch` (annotated or not: `def apply_trace(sch: tir.Schedule) -> None:`). The reader runs its
// body, a subset of Python (docs/design.md: assignments, `for` over range or a list, `if` on
// constants, helper defs, integer arithmetic, indexing, slicing and star-unpacking), and each
// `sch.<primitive>(args)` call it makes becomes a step, nested calls a step of their own just
// before (as the MLC course writes `sch.compute_inline(sch.get_block("B"))`). A name bound to a
// step's list of results stays a name, indexed or sliced when the trace is applied; where the
// Python needs how many results it holds (a `for` over it, len()), the reader pauses and the
// trace says so (ir::TracePause), for the applier to tell and read on. Such a def
// may sit anywhere at the top level of a module file (the module reader skips it) or in a file
// of its own given with `--schedule`; a file holds at most one. Errors go to the
// DiagnosticEngine, located at the offending token.
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
