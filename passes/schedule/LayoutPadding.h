// Filling the padding that transform_layout introduces with its pad_value (TVM's
// TransformLayoutPlanner). The function body is rewritten before transform_layout maps the
// remaining accesses of the old buffer, in TVM's order of preference:
//  - the buffer is never written (an input): a prologue block of `T.assume(not padding or
//    A[...] == pad_value)` over the new shape, first in the function (the caller promises the
//    padding holds the value);
//  - a store of the buffer sits in a loop nest that traverses the old shape row-major (one
//    serial loop from 0 per dimension, the indices exactly those loops, through block
//    bindings) and the nest stores nothing else: the nest becomes a row-major traversal of
//    the new shape and each such store writes `T.if_then_else(padding, pad_value, value)`
//    (the block's iterators for the stored indices become `v_axis0, ...` over the new shape);
//  - otherwise an epilogue block `buffer_<name>_padding` with `T.where(padding)` writes the
//    pad value after the loop nest of the last store.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "llvm/Support/Error.h"
#include "vtac/ir/Stmt.h"

namespace vtac::passes::schedule {

// The padded layout of one buffer: the loop variables that run over the new shape (TVM's
// inverse map's inputs), the old indices in terms of them, the condition under which they
// address padding, and the pad value at given new indices.
struct PaddedLayout {
  const ir::Buffer *old = nullptr;
  ir::BufferRef transformed;
  std::vector<ir::VarRef> axes;
  std::vector<ir::Expr> inverse;
  ir::Expr padding;
  std::function<ir::Expr(const std::vector<ir::Expr> &)> padValueAt;
};

struct PaddedBody {
  ir::Stmt body;
  std::vector<std::string> addedBlocks;  // whose regions the caller infers
};

// `body` (a function body) with the padding of `layout` filled as described above; an error at
// `at` when the last store of the buffer is in neither a block nor a loop.
llvm::Expected<PaddedBody> fillPadding(const ir::Stmt &body, const PaddedLayout &layout, ir::SourceLoc at);

}  // namespace vtac::passes::schedule
