// The entry checks of a compiled function's parameters (TVM's MakePackedAPI binding, for the
// DLTensor ABI): wraps `body` in, for each tensor parameter in order, AssertStmts (not NULL,
// a host tensor for a graph unless HostParam::hostOrVta, ndim, dtype, each constant dimension; byte_offset 0 for VTA
// buffers; compact strides) whose
// messages name the function and the argument, LetStmts binding each symbolic size from the
// first tensor that has it (later tensors are checked against it) and, unless the parameter
// only passes its tensor on (HostParam::bindsData false), the buffer's data variable to the
// tensor's data. Errors: a parameter whose dtype DLPack cannot describe, explicit strides, a
// dimension that is an expression.
#pragma once

#include <llvm/Support/Error.h>

#include "vtac/codegen/HostLowering.h"

namespace vtac::codegen {

llvm::Expected<ir::Stmt> bindParameters(const HostFunction &function, ir::Stmt body);

// The bytes of `buffer`'s elements, as int64 (folded when the shape is constant).
ir::Expr tensorBytes(const ir::Buffer &buffer);

}  // namespace vtac::codegen
