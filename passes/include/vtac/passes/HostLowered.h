// What host-lower leaves for code generation to read (passes/host/Pipeline.cpp): the closures
// its last steps write out, so that the emitters' input (codegen/HostLowering.h) is read off the
// IR rather than worked out again.
#pragma once

#include "vtac/ir/Stmt.h"

namespace vtac::passes {

// The closure a `coproc_uop_scope` declares, as declare-micro-kernels writes it: the T.tvm_tuple
// call that is the scope's node, whose arguments are the variables the kernel captures. Null
// when it declares none.
const ir::Call *declaredMicroKernelClosure(const ir::AttrStmt &scope);

// The op of those tuples (TVM's builtin::tvm_tuple).
inline constexpr const char *kTupleOp = "tir.tvm_tuple";

}  // namespace vtac::passes
