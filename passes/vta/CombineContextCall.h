// combine-context-call (TVM's CombineContextCall, with VTA's command handle as the context): a
// function that drives VTA (passes::usesVta) asks the runtime for its thread's command handle
// once, `cmd = T.call_extern("handle", "VTATLSCommandHandle")` at entry (TVM gives
// tir.vta.command_handle that global symbol), and every `T.tir.vta.command_handle()` becomes
// `cmd`; `T.tvm_thread_context(x)` becomes `x` in any function. A body that already starts by
// binding VTATLSCommandHandle() keeps that binding, so host-lower can run twice. A step of
// host-lower: what the emitters take as the function's command handle (codegen/HostLowering.h).
// Any input: a block is left for code generation to report.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> combineContextCall(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
