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

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

// A primitive's argument and where it was written, for the errors about it.
template <class T>
struct Located {
  T value;
  ir::SourceLoc at;
};

// get_block(name, func_name): the block called `name` in the function.
llvm::Expected<BlockRV> getBlock(Schedule &sch, const Located<std::string> &name, const Located<std::string> &funcName);
// get_loops(block): the loops around the block, outermost first, up to the enclosing block.
llvm::Expected<std::vector<LoopRV>> getLoops(Schedule &sch, const Located<BlockRV> &block);
// get_producers, get_consumers(block): the blocks of its scope it depends on / that depend on it
// (TVM's RAW and WAW dependencies), in program order.
llvm::Expected<std::vector<BlockRV>> getProducers(Schedule &sch, const Located<BlockRV> &block);
llvm::Expected<std::vector<BlockRV>> getConsumers(Schedule &sch, const Located<BlockRV> &block);

// split(loop, factors, preserve_unit_iters, disable_predication): the loop becomes a nest of
// loops `<name>_0`, `<name>_1`, ... with the factors as extents, which it returns outermost first
// (see Split.cpp). One factor may be None (nullopt), inferred from the others.
using SplitFactor = std::optional<int64_t>;
llvm::Expected<std::vector<LoopRV>> split(Schedule &sch, const Located<LoopRV> &loop,
                                          const Located<std::vector<Located<SplitFactor>>> &factors,
                                          bool preserveUnitIters, bool disablePredication);
// fuse(*loops, preserve_unit_iters): consecutive loops, each the only child of the one before,
// become one loop, which it returns (see Fuse.cpp). `stepAt` locates the error of an empty list.
llvm::Expected<LoopRV> fuse(Schedule &sch, const std::vector<Located<LoopRV>> &loops, bool preserveUnitIters,
                            ir::SourceLoc stepAt);
// merge(*loops): loop nests of equal extents in one scope become one nest; returns its innermost
// loop (see Merge.cpp). `stepAt` locates the error of fewer than two loops.
llvm::Expected<LoopRV> merge(Schedule &sch, const std::vector<Located<LoopRV>> &loops, ir::SourceLoc stepAt);
// reorder(*ordered_loops): permutes loops of one chain (see Reorder.cpp); errors about the chain
// as a whole are located at `stepAt`.
llvm::Error reorder(Schedule &sch, const std::vector<Located<LoopRV>> &orderedLoops, ir::SourceLoc stepAt);
// parallel, vectorize, unroll, bind(loop, thread_axis): the loop's kind (see ForKind.h, Bind.cpp).
llvm::Error parallel(Schedule &sch, const Located<LoopRV> &loop);
llvm::Error vectorize(Schedule &sch, const Located<LoopRV> &loop);
llvm::Error unroll(Schedule &sch, const Located<LoopRV> &loop);
llvm::Error bind(Schedule &sch, const Located<LoopRV> &loop, const Located<std::string> &threadAxis);

// set_scope(block, buffer_index, storage_scope), unsafe_set_dtype(block, buffer_index, dtype):
// the buffer the block writes at buffer_index, allocated by a block, moves to another storage
// scope / changes its element type (see SetScope.cpp, UnsafeSetDType.cpp).
llvm::Error setScope(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &bufferIndex,
                     const Located<std::string> &storageScope);
llvm::Error unsafeSetDType(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &bufferIndex,
                           const Located<std::string> &dtype);
// decompose_reduction(block, loop): the block's init becomes a block of its own before the loop,
// which it returns (see DecomposeReduction.cpp).
llvm::Expected<BlockRV> decomposeReduction(Schedule &sch, const Located<BlockRV> &block, const Located<LoopRV> &loop);

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
