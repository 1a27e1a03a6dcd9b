// remove-no-op (TVM's tir.transform.RemoveNoOp): deletes statements that do nothing. An
// `T.evaluate` without side effects, a store of a buffer's own value at a provably equal index,
// a loop whose extent is provably <= 0 or whose body does nothing, an `if` with empty branches
// (an empty else is dropped; an empty then becomes `if not cond:` + else), a let, attribute or
// allocation around nothing, and a `decl_buffer` whose buffer is not used. Side effects survive:
// what remains of a removed statement is `T.evaluate` of its calls. Sequences drop their no-op
// members; an empty function body is `T.evaluate(0)`. Loop ranges and `if` conditions are in
// scope for the proofs (the arithmetic analyzer).
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> removeNoOp(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
