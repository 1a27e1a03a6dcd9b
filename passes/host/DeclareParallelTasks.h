// declare-parallel-tasks (vtac; the IR half of TVM's parallel-loop outlining, which turns a
// parallel loop's body into a lambda for TVMBackendParallelLaunch): each outermost parallel loop
// states what its task captures.
//
// Code generation runs the body of an outermost `for i in T.parallel(min, extent)` as a task of
// vtac's thread pool (runtime/parallel, `vtac_parallel_for`): a static function over a range of
// the iterations that reads the variables of the function it was cut from through a closure.
// This pass writes that closure around the loop, in order of first use: the variables the loop's
// start and body read (scalars, buffer data handles), then those in the shapes, strides and
// offsets of the buffers it indexes (the emitters flatten indices with them):
//
//   for i in T.parallel(64):       with T.attr(0, "vtac.parallel_task", T.tvm_tuple(B.data, A.data, n)):
//       B[i] = A[i] * n      ->        for i in T.parallel(64):
//                                          B[i] = A[i] * n
//
// A parallel loop inside it runs serially in the task (one level of parallelism, as TVM's) and
// declares nothing, as does one in a micro-kernel (code generation takes its body as it is). Code generation (codegen/HostLowering.h) cuts each declared loop out with
// that closure and works nothing out again. One of host-lower's last steps, on the body the emitters
// take (bind-entry-parameters after it only wraps it); a second run writes the same closure again. The interpreter runs parallel loops serially
// and reads no closure.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> declareParallelTasks(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
