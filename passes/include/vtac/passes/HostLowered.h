// What host-lower leaves for code generation to read (passes/host/Pipeline.cpp): the closures
// its last steps write out, so that the emitters' input (codegen/HostLowering.h) is read off the
// IR rather than worked out again.
#pragma once

#include "vtac/ir/Expr.h"
#include "vtac/ir/Stmt.h"

namespace vtac::passes {

// The closure a `coproc_uop_scope` declares, as declare-micro-kernels writes it: the T.tvm_tuple
// call that is the scope's node, whose arguments are the variables the kernel captures. Null
// when it declares none (or the scope names no push function).
const ir::Call *declaredMicroKernelClosure(const ir::AttrStmt &scope);

// A parallel loop's task, as declare-parallel-tasks writes it: `attr` is
// `T.attr(0, "vtac.parallel_task", T.tvm_tuple(...))` around a parallel loop; the result is
// its tuple, whose arguments are the variables the task captures. Null for any other attribute.
inline constexpr const char *kParallelTaskAttr = "vtac.parallel_task";
const ir::Call *declaredParallelTask(const ir::AttrStmt &attr);

// The op of those tuples (TVM's builtin::tvm_tuple).
inline constexpr const char *kTupleOp = "tir.tvm_tuple";

// `tuple` is a closure as those passes write it: a T.tvm_tuple of variables.
inline bool isClosure(const ir::Call *tuple) {
  if (!tuple || tuple->op != kTupleOp) return false;
  for (const ir::Expr &arg : tuple->args)
    if (!arg.isa<ir::Var>()) return false;
  return true;
}

}  // namespace vtac::passes
