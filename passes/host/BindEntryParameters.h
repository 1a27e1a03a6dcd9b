// bind-entry-parameters (the binding half of TVM's MakePackedAPI, for vtac's DLTensor ABI): a
// function's parameters become what its compiled entry receives, checked and bound.
//
// Each buffer parameter becomes a `DLTensor *` handle (a fresh variable of the parameter's
// name; bufferMap keeps the buffer under it, as the header emitter, the access bounds and the
// JIT's marshalling read it); the body is wrapped in the entry checks of passes/EntryBinding.h
// (AssertStmts naming the function's global_symbol and the argument, LetStmts binding symbolic
// sizes and each buffer's data), and the function is marked `vtac.entry_bound`. The last step
// of host-lower: code generation (codegen/HostLowering.h) requires the mark, and the
// interpreter, which takes buffers rather than DLTensors, refuses it.
//
// A function without a global_symbol (not an entry: the driver names each one it compiles), one
// with a block left (code generation reports it) or one already bound is left alone. Errors
// (located): a parameter that is neither a buffer nor a scalar, and those of the entry checks
// (a dtype DLPack cannot describe, explicit strides, a dimension depending on sizes no earlier
// dimension gives, too many dimensions).
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> bindFunctionEntry(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
