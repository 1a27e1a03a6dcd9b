// The schedule primitives as typed functions, as TVM's tir::Schedule methods are: each takes the
// schedule, the random variables it works on and its plain values, and returns its results or an
// error (nothing changed). The trace applier decodes a step's arguments (names, keywords,
// defaults, argument types) and calls these; the primitives call each other and the
// auto-scheduler can call them the same way, with no trace step in between.
//
// Errors are located: an argument an error can point at comes `Located`, with where it was
// written (a direct caller gives the place it schedules, as the auto-scheduler's trace steps
// carry the scheduled function's location). Primitives not yet here still take their step's
// arguments (Primitive.h).
#pragma once

#include <variant>

#include <llvm/Support/Error.h>

#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

// A primitive's argument and where it was written, for the errors about it.
template <class T>
struct Located {
  T value;
  ir::SourceLoc at;
};

// Where compute_at puts a block: a loop, or a location mark of sample_compute_location.
using ComputeLocation = std::variant<LoopRV, LocationMarkRV>;

// compute_at(block, loop, preserve_unit_loops, index): moves the producer block under the loop,
// computing the region its consumers under the loop read. It goes, as in TVM, before the first of
// the loop's statements holding one of its consumers (at the end without one), or with index -2
// right after the last holding one of its producers. Regions are relaxed over the loops below the
// loop (and over thread-bound loops above whose threads share the buffer's storage scope); one
// loop `ax<k>` per block iterator whose range is not a single point (or for every iterator with
// preserve_unit_loops), binding `min + ax<k>`. At the root mark the block stays where it is; at
// the inline mark it is compute_inline'd (TVM's ConcreteScheduleNode::ComputeAt).
llvm::Error computeAt(Schedule &sch, const Located<BlockRV> &block, const Located<ComputeLocation> &loop,
                      bool preserveUnitLoops, const Located<int64_t> &index);
// reverse_compute_at: compute_at for a consumer block, covering the region its producers under
// the loop write; the inline mark reverse_compute_inline's it.
llvm::Error reverseComputeAt(Schedule &sch, const Located<BlockRV> &block, const Located<ComputeLocation> &loop,
                             bool preserveUnitLoops, const Located<int64_t> &index);
// compute_inline(block): see ComputeInline.cpp.
llvm::Error computeInline(Schedule &sch, const Located<BlockRV> &block);
// reverse_compute_inline(block): see ReverseComputeInline.cpp.
llvm::Error reverseComputeInline(Schedule &sch, const Located<BlockRV> &block);

}  // namespace vtac::passes::schedule
