// Applies a schedule (a trace read from text) to a module.
//
// Each step is bound to its primitive's signature (positional and keyword arguments, defaults
// filled in), its RV arguments resolved, the primitive applied, and its results bound to the
// step's names. The first illegal step stops the schedule with an error located at that step (or
// at the offending argument); the module is changed only when every step succeeded. On success
// the returned trace is what TVM's `print(sch.trace)` shows for the same schedule: RVs renamed
// b0, l1, ..., every argument spelled out as a keyword (variadic loops positional), implicit
// `get_block`s (a block given by name) made explicit. Re-applying that trace to the original
// module gives the same result (the round trip). A trace the reader paused in (ir::TracePause)
// is read on, told the count it needs, once the steps before the pause are applied.
#pragma once

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"
#include "vtac/ir/Trace.h"
#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

// `intrinsics` are what tensorize can use; `seed` seeds the sample_* steps that have no
// `decision=` (the returned trace holds the decisions taken, so it replays exactly).
llvm::Expected<ir::Trace> applyTrace(ir::IRModule &module, const ir::Trace &trace,
                                     const TensorIntrinTable &intrinsics = {}, uint64_t seed = 0);

}  // namespace vtac::passes::schedule
