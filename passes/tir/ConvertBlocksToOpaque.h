// convert-blocks-to-opaque (TVM's ConvertBlocksToOpaque): every block iteration variable is
// replaced, in the block's body, regions and inner blocks, by the value its realize binds it
// to, and the block loses its iteration variables (an "opaque" block: `with T.block("C"):`
// with loop variables in its accesses). Predicates and bindings may not mention the iteration
// variables of the block they belong to (a located error). Expects TensorIR without
// `T.init()` (run lower-init-block first); TE-lowered functions are left alone.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> convertBlocksToOpaque(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
