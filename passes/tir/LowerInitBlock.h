// lower-init-block (TVM's LowerInitBlock): a reduction block's `T.init()` becomes an ordinary
// statement at the start of its body, guarded by "every reduction iteration variable is at the
// start of its domain": `if vk == 0: C[vi, vj] = 0` followed by the update. The block keeps its
// iteration variables and regions; only `init` is gone. A block whose iteration variables are
// all spatial runs its init unconditionally. Expects TensorIR (blocks); leaves lowered TIR as
// it is.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> lowerInitBlock(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
