// legalize-ops (TVM's relax.transform.LegalizeOps): every high-level operator call in the
// module's Relax functions (`gv: R.Tensor(...) = R.add(x, y)`) becomes an R.call_tir of a
// prim_func generated from the topi compute TVM uses for it (legalize/Legalize.h), added to the
// module as a private prim_func named after the compute ("add", "add1", ...; a function
// structurally equal to one already in the module is called instead of added again, as TVM's
// BlockBuilder deduplicates); an R.arange of constant bounds becomes the constant it computes,
// as TVM's legalization folds it. The bound variables keep their struct info. Errors are located
// at the call or the argument whose shape or element type is unknown.
#pragma once

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"
#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Error legalizeOps(ir::IRModule &module, PassContext &context);

}  // namespace vtac::passes
