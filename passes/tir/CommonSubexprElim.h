// cse (TVM's tir.transform.CommonSubexprElimTIR, the algorithm of TVM 0.9-0.18 that printed the
// seeds' `cse_var_N`): for each statement, from the outside in, the eligible computations it
// performs (integer/boolean expressions without loads or calls, not variables or literals) are
// counted — a loop or an `if` counts only what at least two of its parts compute, so lets land
// on the statements inside the loops — and, largest first (ties by TVM's legacy text), every one
// computed at least twice whose variables are all in scope becomes `cse_var_N: T.int32 = ...` just
// above the statement; one that is not gets its direct sub-expressions counted once more. N counts
// up through the function (skipping names already used), so later lets enclose earlier ones and
// the printed order reproduces TVM's (`cse_var_4 = j * 16` above `cse_var_3 = ... + cse_var_4`).
// A computation equal to the value of an enclosing let reuses that variable. Expects lowered TIR
// (loops and flat statements); blocks are left as they are.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> commonSubexprElim(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
