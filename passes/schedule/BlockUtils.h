// Helpers for the primitives that move, remove or re-infer blocks: removing a block's loop nest
// from its scope, the buffers the function knows, re-inferring regions, relaxing regions over
// loops (TVM's EvalSet on affine indices).
#pragma once

#include <map>
#include <optional>
#include <set>

#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

// Removes the block at blockPath with the loops that hold only it: the highest loop (below
// the enclosing block) whose subtree is just this block is dropped from its SeqStmt. An
// error at `at` (whyNotRemovableLeaf's reason) when there is no sequence to remove it from.
llvm::Error removeLeafBlock(Schedule &sch, const std::string &func, const StmtPath &blockPath, ir::SourceLoc at);
// Why removeLeafBlock cannot remove the block (TVM's LeafBlockRemovalPlan error), or an empty
// string when it can: a primitive checks it in TVM's order before it changes anything.
std::string whyNotRemovableLeaf(const StmtPath &blockPath);

// Index in blockPath of the statement removeLeafBlock would remove (the block's own subtree root).
size_t leafSubtreeIndex(const StmtPath &blockPath);

// The block's enclosing scope: path up to (and including) the nearest enclosing Block.
StmtPath scopeOf(const StmtPath &blockPath);

// The BlockRealizes under root that no other block under root encloses (TVM's child blocks),
// in program order, as paths from root.
std::vector<StmtPath> childBlockPaths(const ir::Stmt &root);

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

// The Block named `name` under root (null when there is none): how a primitive finds a scope
// block again after replacing a statement inside it.
ir::Stmt blockNamed(const ir::Stmt &root, const std::string &name);

// The statements of a body: a SeqStmt's, or the body itself.
std::vector<ir::Stmt> statementsOf(const ir::Stmt &body);
// Whether a block named in `blocks` is under stmt.
bool holdsBlockNamed(const ir::Stmt &stmt, const std::set<std::string> &blocks);

// Function parameters' buffers and every buffer a block allocates (what region inference
// recognises in `B.data`).
std::vector<ir::BufferRef> functionBuffers(const ir::PrimFunc &func);

// Re-infers T.reads/T.writes of the blocks named in `names` (with inferAccessRegions).
ir::Stmt reinferRegions(const ir::Stmt &root, const std::set<std::string> &names,
                        const std::vector<ir::BufferRef> &knownBuffers);

// An interval [min, min + extent) of a buffer dimension; extent null: unknown (whole dimension).
struct Interval {
  ir::Expr min;
  std::optional<int64_t> extent;
};

// The range that `range` (in terms of outer variables) covers while the variables in `relaxed`
// run over their ranges; only affine indices with constant relaxed ranges are bounded, anything
// else gives an unknown extent. The extent is simplified under what `outer` knows of the
// variables that are not relaxed, as TVM's compute_at simplifies the relaxed bounds under the
// loops around: `(c_o * 360 + 359) // 16 - c_o * 360 // 16` is 22 only for c_o in [0, 2).
Interval relaxRange(const ir::Range &range, const std::map<const ir::Var *, ir::Range> &relaxed, ir::arith::Analyzer &outer);
// The same, knowing nothing of the variables that are not relaxed.
Interval relaxRange(const ir::Range &range, const std::map<const ir::Var *, ir::Range> &relaxed);
// The union of two intervals when their mins differ by a constant; unknown otherwise.
Interval uniteIntervals(const Interval &a, const Interval &b);

// The error for a storage scope TVM does not know, naming the known ones ("<primitive>: 'x' is
// not a storage scope (global, ...)"); empty when `scope` is one.
std::string whyNotStorageScope(const std::string &primitive, const std::string &scope);
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
