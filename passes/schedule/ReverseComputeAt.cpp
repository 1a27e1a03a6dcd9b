// reverse_compute_at(block, loop, preserve_unit_loops=False, index=-1): see ComputeAt.h.
#include "ComputeAt.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<RV>> applyReverseComputeAt(Schedule &sch, StepArgs &args) {
  return computeAtImpl(sch, args, false);
}

}  // namespace vtac::passes::schedule
