// hoist-reduction-init (vtac; host code): a reduction's initialisation moves out of the loop it
// is guarded in. lower-init-block leaves `T.init()` as the first statement of the innermost
// reduction loop, guarded by "every reduction variable at its start":
//
//   for k in range(1024):                 C[i, j] = 0.0
//       if k == 0:                  ->    for k in range(1024):
//           C[i, j] = 0.0                     C[i, j] = C[i, j] + A[i, k] * B[k, j]
//       C[i, j] = C[i, j] + ...
//
// A serial loop whose body starts (under buffer declarations) with `if v == min` (alone or as a
// term of an `and`, without an else) and whose extent is a positive constant runs that
// statement in its first iteration, before anything else: it goes in front of the loop, with v
// replaced by min and the guard's other terms kept. Loops are visited innermost first, so the
// guard of a nest of reduction loops (`rc == 0 and ry == 0 and rx == 0`) climbs out of all of
// them. The result is the same program; the guard no longer stops LLVM from keeping the
// accumulator in a register, and vectorize-outer-loops can see the reduction.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> hoistReductionInit(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
