// What compute_at and reverse_compute_at share (TVM's ComputeAtOrReverseComputeAtImpl).
#pragma once

#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

// compute_at (isComputeAt) or reverse_compute_at, as Primitives.h describes them.
llvm::Error computeAtOrReverseComputeAt(Schedule &sch, const Located<BlockRV> &block,
                                        const Located<ComputeLocation> &loop, bool preserveUnitLoops,
                                        const Located<int64_t> &index, bool isComputeAt);

}  // namespace vtac::passes::schedule
