// remove-no-op (TVM's tir.transform.RemoveNoOp): deletes statements that do nothing. An
// `T.evaluate` without side effects, a store of a buffer's own value at a provably equal index,
// a loop whose extent is provably <= 0 or whose body does nothing, an `if` with empty branches
// (an empty else is dropped; an empty then becomes `if not cond:` + else), a let, attribute or
// allocation around nothing, and a `decl_buffer` whose buffer is not used. Side effects survive:
// what remains of a removed statement is `T.evaluate` of its calls. Sequences drop their no-op
// members; an empty function body is `T.evaluate(0)`. Loop ranges and `if` conditions are in
// scope for the proofs (the arithmetic analyzer).
//
// Configuration (TVM's tir.RemoveNoOp config), as PassContext options:
//   remove-no-op.use-dataflow-analysis     0  (1: also remove, within a sequence, a store or
//       loop nest of one store whose every element a later one overwrites before anything may
//       read the buffer, and a plain store of the value an earlier nest left there)
//   remove-no-op.max-simplification-steps  0  (TVM's budget of analyzer steps; read for TVM's
//       configs, vtac's proofs have no such budget)
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> removeNoOp(const ir::PrimFuncRef &func, PassContext &context);
// The options above, by name.
std::vector<std::string> removeNoOpOptions();

}  // namespace vtac::passes
