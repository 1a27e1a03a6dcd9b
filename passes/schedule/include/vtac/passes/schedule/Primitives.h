// The schedule primitives as typed functions, as TVM's tir::Schedule methods are: each takes the
// schedule, the random variables it works on and its plain values, and returns its results or an
// error (nothing changed). The trace applier decodes a step's arguments (names, keywords,
// defaults, argument types) and calls these; the primitives call each other and the
// auto-scheduler can call them the same way, with no trace step in between.
//
// Errors are located: an argument an error can point at comes `Located`, with where it was
// written (a direct caller gives the place it schedules, as the auto-scheduler's trace steps
// carry the scheduled function's location).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/ir/AttrValue.h"
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

// What get_child_blocks, add_unit_loop, annotate and tensorize take: a block or a loop.
using BlockOrLoop = std::variant<BlockRV, LoopRV>;
// get_child_blocks(block_or_loop): the blocks directly under a block or a loop (blocks nested in
// those are not included), in program order.
llvm::Expected<std::vector<BlockRV>> getChildBlocks(Schedule &sch, const Located<BlockOrLoop> &parent);

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
// add_unit_loop(block_or_loop): a new loop `u` of extent 1 around it, which it returns.
llvm::Expected<LoopRV> addUnitLoop(Schedule &sch, const Located<BlockOrLoop> &target);

// annotate(block_or_loop, ann_key, ann_val), unannotate(block_or_loop, ann_key): sets / removes
// an annotation of a block (T.block_attr) or a loop (annotations=); an absent key is an error.
llvm::Error annotate(Schedule &sch, const Located<BlockOrLoop> &target, const std::string &key,
                     const ir::AttrValue &value);
llvm::Error unannotate(Schedule &sch, const Located<BlockOrLoop> &target, const Located<std::string> &key);
// storage_align(block, buffer_index, axis, factor, offset): the stride of `axis` of the buffer
// the block writes at buffer_index is to be `factor * k + offset` (see StorageAlign.cpp).
llvm::Error storageAlign(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &bufferIndex,
                         const Located<int64_t> &axis, const Located<int64_t> &factor, const Located<int64_t> &offset);

// set_scope(block, buffer_index, storage_scope), unsafe_set_dtype(block, buffer_index, dtype):
// the buffer the block writes at buffer_index, allocated by a block, moves to another storage
// scope / changes its element type (see SetScope.cpp, UnsafeSetDType.cpp).
llvm::Error setScope(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &bufferIndex,
                     const Located<std::string> &storageScope);
llvm::Error unsafeSetDType(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &bufferIndex,
                           const Located<std::string> &dtype);
// cache_read(block, read_buffer_index, storage_scope, consumer_blocks), cache_write(block,
// write_buffer_index, ...): a copy of the buffer in `storage_scope` and the block that copies it,
// which they return (see CacheRead.cpp, CacheWrite.cpp); no consumer blocks means all of them.
// The copy's statements are located at `stepAt`.
llvm::Expected<BlockRV> cacheRead(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &readBufferIndex,
                                  const Located<std::string> &storageScope,
                                  const Located<std::vector<BlockRV>> &consumerBlocks, ir::SourceLoc stepAt);
llvm::Expected<BlockRV> cacheWrite(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &writeBufferIndex,
                                   const Located<std::string> &storageScope,
                                   const Located<std::vector<BlockRV>> &consumerBlocks, ir::SourceLoc stepAt);

// A buffer a block accesses, as TVM's (buffer_index, buffer_index_type) names it: the index-th
// buffer the block reads, or writes.
struct BufferAccess {
  int64_t index;
  bool isWrite;
};
// An index map `lambda i, j: (...)`, kept as the text spells it (TVM's IndexMap): a Lambda whose
// items are its parameters and then the list of its results, integer expressions of them and of
// sampled values, named (see ir::TraceValue). `*indices` is expanded and IndexMap.AXIS_SEPARATOR
// taken out (transform_layout's axis separators).
struct IndexMap {
  ir::TraceValue lambda;
  std::map<std::string, int64_t> sampled;  // the values of the names it uses
};
// transform_layout's pad_value: none, a constant, or an index map over the new indices giving one
// value.
using PadValue = std::variant<std::monostate, int64_t, double, IndexMap>;
// transform_layout(block, buffer, index_map, pad_value, assume_injective_transform): the buffer
// re-shaped by the index map, the padding it adds filled with pad_value (see TransformLayout.cpp);
// the axis separators (the number of results before each) go on the transformed buffer.
llvm::Error transformLayout(Schedule &sch, const Located<BlockRV> &block, const Located<BufferAccess> &buffer,
                            const Located<IndexMap> &indexMap, const Located<PadValue> &padValue,
                            bool assumeInjectiveTransform, const std::vector<int64_t> &axisSeparators);
// set_axis_separator(block, buffer, axis_separators): see SetAxisSeparator.cpp.
llvm::Error setAxisSeparator(Schedule &sch, const Located<BlockRV> &block, const Located<BufferAccess> &buffer,
                             const std::vector<Located<int64_t>> &axisSeparators);

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


// What blockize takes: a loop, or a list of blocks.
using BlockizeTarget = std::variant<LoopRV, std::vector<BlockRV>>;
// blockize(target, preserve_unit_iters): the nest under the loop (or the blocks) becomes the body
// of a new outer block, which it returns (see Blockize.cpp).
llvm::Expected<BlockRV> blockize(Schedule &sch, const Located<BlockizeTarget> &target, bool preserveUnitIters);
// tensorize(block_or_loop, tensor_intrin, preserve_unit_iters): a loop is blockized first; the
// block's body becomes the registered intrinsic's implementation (see Tensorize.cpp), its
// statements located at `stepAt`.
llvm::Error tensorize(Schedule &sch, const Located<BlockOrLoop> &target, const Located<std::string> &tensorIntrin,
                      bool preserveUnitIters, ir::SourceLoc stepAt);
// rfactor(loop, factor_axis): factors the reduction block under the loop by it; returns the
// rfactor block (see RFactor.cpp).
llvm::Expected<BlockRV> rfactor(Schedule &sch, const Located<LoopRV> &loop, const Located<int64_t> &factorAxis);

// The sample_* primitives draw from the schedule's seeded random source unless given a decision,
// and set `decision` to the one they took, which the trace records.
// sample_categorical(candidates, probs, decision): one of the candidates, drawn with the given
// probabilities (see SampleCategorical.cpp).
llvm::Expected<int64_t> sampleCategorical(Schedule &sch, const Located<std::vector<int64_t>> &candidates,
                                          const Located<std::vector<Located<double>>> &probs,
                                          Located<std::optional<int64_t>> &decision);
// sample_perfect_tile(loop, n, max_innermost_factor, decision): n factors whose product is the
// loop's extent, the first None (nullopt) for a loop without a constant extent (see
// SamplePerfectTile.cpp).
llvm::Expected<std::vector<SplitFactor>> samplePerfectTile(Schedule &sch, const Located<LoopRV> &loop,
                                                           const Located<int64_t> &n, int64_t maxInnermostFactor,
                                                           Located<std::optional<std::vector<int64_t>>> &decision);
// sample_compute_location(block, decision): a place for compute_at, a loop or a location mark
// (see SampleComputeLocation.cpp).
llvm::Expected<ComputeLocation> sampleComputeLocation(Schedule &sch, const Located<BlockRV> &block,
                                                      Located<std::optional<int64_t>> &decision);

}  // namespace vtac::passes::schedule
