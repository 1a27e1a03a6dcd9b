// What compute_at and reverse_compute_at share (TVM's ComputeAtOrReverseComputeAtImpl).
#pragma once

#include "Primitive.h"

namespace vtac::passes::schedule {

// Moves the "block" argument under the "loop" argument. compute_at: the block is a producer,
// placed before the first consumer under the loop, computing the region its consumers there
// read. reverse_compute_at: the block is a consumer, placed after the last producer under the
// loop, covering the region they write. Regions are relaxed over the loops below `loop` (and,
// for compute_at, over thread-bound loops above whose threads share the buffer's storage
// scope); one loop `ax<k>` per block iterator whose range is not a single point (or for every
// iterator with preserve_unit_loops), binding `min + ax<k>`.
llvm::Expected<std::vector<RV>> computeAtImpl(Schedule &sch, StepArgs &args, bool isComputeAt);

}  // namespace vtac::passes::schedule
