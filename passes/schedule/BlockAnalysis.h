// What the primitives ask of a block before they move or remove it (TVM's schedule analysis):
// its producers and consumers, whether it is complete, a reduction or an output block, whether it
// is a single store.
#pragma once

#include <string>
#include <vector>

#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

// The blocks of the block's scope it depends on (producers: earlier blocks writing a buffer it
// reads or writes) or that depend on it (consumers: later blocks reading or writing a buffer it
// writes): TVM's RAW and WAW edges of the block scope, in program order.
llvm::Expected<std::vector<BlockRV>> dependentBlocks(const Schedule &sch, const BlockRV &rv, ir::SourceLoc at,
                                                     bool producers);

// Whether two lists of expressions (indices, shapes) are structurally equal, item by item.
bool sameExprs(const std::vector<ir::Expr> &a, const std::vector<ir::Expr> &b);

// The block's body when it is a single store without allocations writing one buffer (what the
// inlining primitives move; an init is theirs to check, as TVM's HasInitBlock); null otherwise.
// With underGuard, also the store that is the whole then-branch of a body `if cond:` without
// else (a reverse_compute_inline producer).
const ir::BufferStore *singleStoreBody(const ir::Block &block, bool underGuard = false);

// Whether `indices` are distinct data-parallel iterators of the block (each at most once).
bool indexedByDistinctDataParIters(const ir::Block &block, const std::vector<ir::Expr> &indices);

// Why the buffer a block writes cannot be inlined away (its data pointer is used directly, or a
// block matches a region of it: TVM's OpaqueAccessError), or an empty string when it can.
std::string whyBufferIsAccessedOpaquely(const ir::PrimFunc &func, const ir::Buffer *buffer);

// Why the block is an output block of its scope (TVM's IsOutputBlock: it writes a buffer that
// the scope block does not allocate, a function parameter or, in a nested scope, a buffer
// allocated further out), or an empty string when it is not one.
std::string whyOutputBlock(const ir::Block &block, const ir::Block &scope);

// Why the block at blockPath is not a complete block (TVM's CheckCompleteBlock, in its order:
// 1. spatial iterators only, 2. the only writer of its outputs in its scope, 3. not reading what
// it writes), or an empty string when it is one.
std::string whyNotCompleteBlock(const StmtPath &blockPath);

// Why the block at blockPath is neither a complete block (spatial iterators only, the dominant
// writer of its outputs, not reading them) nor a reduction block (a T.init, an affine binding of
// spatial and reduction iterators, dominant, no output index using a reduction iterator); empty
// when it is one of them. Without `loop` the block must be the only writer of its outputs in its
// scope (TVM's CheckCompleteOrReductionBlock, as compute_at asks it). With `loop` it is TVM's
// compact-dataflow condition for the loop's subtree: writers are counted only inside the loop's
// child blocks, so blocks under the loop may share an output with blocks elsewhere in the scope
// (or each other).
std::string whyNotCompleteOrReduction(const StmtPath &blockPath, const ir::Stmt *loop = nullptr);

}  // namespace vtac::passes::schedule
