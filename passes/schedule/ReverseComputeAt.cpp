// reverse_compute_at(block, loop, preserve_unit_loops=False, index=-1): see Primitives.h.
#include "ComputeAt.h"

namespace vtac::passes::schedule {

llvm::Error reverseComputeAt(Schedule &sch, const Located<BlockRV> &block, const Located<ComputeLocation> &loop,
                             bool preserveUnitLoops, const Located<int64_t> &index) {
  return computeAtOrReverseComputeAt(sch, block, loop, preserveUnitLoops, index, /*isComputeAt=*/false);
}

}  // namespace vtac::passes::schedule
