// Helpers the loop primitives share: the loops of a block's scope and TVM's simplification of
// block bindings after a loop transformation.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

// How deep (statements from the function's root) split and add_unit_loop may nest a loop: as
// deep as the frontend reads back (its statement nesting limit). Each step's cost grows with
// the depth, so a trace that adds loops without end stops at a located error after seconds
// instead of running for minutes.
constexpr size_t kMaxNestDepth = 1000;

// The error of a step that would nest `depth` statements deep, more than kMaxNestDepth; success otherwise.
llvm::Error checkNestDepth(size_t depth, const char *primitive, ir::SourceLoc at);

// split/fuse precondition: the loop starts at 0 and has no annotations or thread binding.
llvm::Error checkPlainLoop(const ir::For &loop, const char *primitive, ir::SourceLoc at);

// The For nodes of `path` below its last Block (the loops of the innermost enclosing scope),
// outermost first; path.back() is included when it is a For.
std::vector<const ir::For *> loopsInScope(const StmtPath &path);

// TVM's IterMapSimplify for the affine case: a binding that is a sum of loop variables times
// constants plus a constant, whose terms tile one range exactly (each coefficient is the next
// smaller one times that one's extent), becomes the sum ordered from the largest coefficient
// (`i_0 * 64 + i_1 * 8 + i_2`). Anything else is returned unchanged. `extents` are the constant
// extents of the loops in scope.
ir::Expr simplifyBinding(const ir::Expr &binding, const std::map<const ir::Var *, int64_t> &extents);

// simplifyBinding on every BlockRealize under root, with the extents of `outerLoops` and of the
// loops under root. Without preserveUnitIters, loop variables of extent 1 become 0 first.
ir::Stmt simplifyBindings(const ir::Stmt &root, const std::vector<const ir::For *> &outerLoops,
                          bool preserveUnitIters);

// TVM's affine binding (IsAffineBinding: DetectIterMap, surjective, over `loops`; variables of
// other loops are symbols) for the forms schedules produce: each binding is a fused iterator of
// scale 1 (loop variables times constants covering one range without gaps, `i * 4 + ii` or the
// overlapping `v0 * 2 + v1` with v1 < 4, plus terms free of the loops) using loops no other
// binding uses, or splits of such iterators by constants or size variables (`f // 4`, `f % n`); each predicate
// conjunct using the loops bounds (`<`, `<=`) a fused iterator of loops of one binding.
// `l * 16`, `v0 * v0 + v1` and a predicate bounding i, j, k and l of four bindings together are
// not affine. Not ported: padded or symbolic-stride iterators. Names the first binding or
// predicate conjunct that is not affine ("the binding of 'vk' (k * k // 2)"); empty when all are.
std::string whyNotAffineBinding(const ir::BlockRealize &realize, const std::vector<const ir::For *> &loops);
inline bool isAffineBinding(const ir::BlockRealize &realize, const std::vector<const ir::For *> &loops) {
  return whyNotAffineBinding(realize, loops).empty();
}

}  // namespace vtac::passes::schedule
