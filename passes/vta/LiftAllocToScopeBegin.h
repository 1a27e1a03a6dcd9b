// lift-alloc-to-scope-begin (TVM's VTA LiftAllocToScopeBegin): every allocation moves to the
// start of the body of its nearest enclosing loop or `virtual_thread` attribute (the function
// body for the others), keeping their order. lift-coproc-scope stops at allocations, so this lets
// a coproc_scope cover the statements of a loop body, and lets inject-virtual-thread find the
// SRAM allocations right under the virtual thread.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> liftAllocToScopeBegin(const ir::PrimFuncRef &func,
                                                      PassContext &context);

}  // namespace vtac::passes
