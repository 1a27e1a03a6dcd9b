// Outlining of `parallel` loops for the host (TVM's LowerTVMBuiltin / MakePackedAPI outline a
// parallel loop body into a lambda run by TVMBackendParallelLaunch; this is the same for
// vtac's pool, `vtac_parallel_for` in runtime/parallel).
//
// Each outermost `for i in T.parallel(min, extent)` of `body`, which declare-parallel-tasks (the
// last step of host-lower, passes/host/DeclareParallelTasks.h) wrapped in the closure of the
// variables it reads (scalars, buffer data handles, the sizes of the buffers it indexes), becomes
// a ParallelTask (a serial loop over the iterations [min + begin, min + end) of a task's range,
// and that closure) and, in its place, `hostop::kParallelFor(index, extent)`, which the emitters
// turn into a call of the pool with a static task function. A parallel loop inside a task runs serially in it (one
// level of parallelism, as TVM). The interpreter runs parallel loops serially: every iteration
// must be independent of the others, which the schedule that made the loop parallel promised.
// Errors (located): a parallel loop whose body calls the VTA runtime or pushes a micro-kernel
// (the command handle belongs to the calling thread), a parallel loop that declares no closure
// (host-lower has not run).
#pragma once

#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/codegen/HostLowering.h"

namespace vtac::codegen {

llvm::Expected<ir::Stmt> outlineParallelLoops(const ir::Stmt &body, std::vector<ParallelTask> &tasks);

}  // namespace vtac::codegen
