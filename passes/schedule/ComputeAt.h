// What compute_at and reverse_compute_at share (TVM's ComputeAtOrReverseComputeAtImpl).
#pragma once

#include "Primitive.h"

namespace vtac::passes::schedule {

// What a compute_at or reverse_compute_at step asks, and where its arguments were written.
struct ComputeAtRequest {
  BlockRV block;
  LoopRV loop;
  bool preserveUnitLoops = false;
  int64_t index = -1;
  ir::SourceLoc blockAt, loopAt, indexAt;
};

// Moves the block under the loop. compute_at: the block is a producer, computing the region its
// consumers under the loop read. reverse_compute_at: the block is a consumer, covering the region
// its producers under the loop write. Either goes, as in TVM, before the first of the loop's
// statements holding one of its consumers (at the end without one), or with index -2 right after
// the last holding one of its producers. Regions are relaxed over the loops below the loop (and,
// for compute_at, over thread-bound loops above whose threads share the buffer's storage scope);
// one loop `ax<k>` per block iterator whose range is not a single point (or for every iterator
// with preserve_unit_loops), binding `min + ax<k>`. An illegal request changes nothing.
llvm::Error computeAt(Schedule &sch, const ComputeAtRequest &request, bool isComputeAt);

// The step: its arguments read into a request for computeAt. The loop may be a location mark of
// sample_compute_location, as in TVM: at the root mark the block stays where it is, at the
// inline mark it is compute_inline'd (reverse_compute_inline'd).
llvm::Expected<std::vector<RV>> computeAtImpl(Schedule &sch, StepArgs &args, bool isComputeAt);

}  // namespace vtac::passes::schedule
