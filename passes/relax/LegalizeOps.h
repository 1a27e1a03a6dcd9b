// legalize-ops (TVM's relax.transform.LegalizeOps): every high-level operator call in the
// module's Relax functions (`gv: R.Tensor(...) = R.add(x, y)`), in if branches and local
// functions too, becomes an R.call_tir of a
// prim_func generated from the topi compute TVM uses for it (legalize/Legalize.h), added to the
// module as a private prim_func named after the compute ("add", "add1", ...; a function
// structurally equal to one already in the module is called instead of added again, as TVM's
// BlockBuilder deduplicates); an R.arange of constant bounds becomes the constant it computes,
// as TVM's legalization folds it. The bound variables keep their struct info. Errors are located
// at the call or the argument whose shape or element type is unknown.
#pragma once

#include <string>

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"
#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Error legalizeOps(ir::IRModule &module, PassContext &context);

// Adds `func` to the module as TVM's BlockBuilder adds a generated function (legalize-ops,
// fuse-ops): the name of a structurally equal prim_func already there, else a fresh name from
// the hint ("add", then "add1", "add2", as TVM's NameSupply).
std::string addPrimFunc(ir::IRModule &module, const ir::PrimFuncRef &func, const std::string &hint);

}  // namespace vtac::passes
