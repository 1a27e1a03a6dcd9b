// plan-buffer-allocation (TVM's PlanAndUpdateBufferAllocationLocation): every buffer a block
// allocates (`T.alloc_buffer`) moves to the lowest common ancestor (a loop or a block) of all
// its accesses (a buffer a reduction block writes: above the loops of its reduction iterators,
// which it accumulates across). At a block it joins that block's alloc_buffers; at a loop, the loop's body is
// wrapped in a new opaque block (no iteration variables, name "") that allocates it, with
// reads/writes inferred for that body. Buffers in global memory are not placed inside a
// `blockIdx` loop's body, buffers nothing accesses are dropped, and the reads/writes of every
// block no longer mention buffers allocated inside it. Expects TensorIR without `T.init()`
// (run lower-init-block first); functions from the TE schedule are left alone. Produces
// TensorIR with each allocation at its use.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> planBufferAllocation(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
