// Where an access to a `T.match_buffer` view lands in its source (TVM's MatchBufferLower rule):
// the view's indices are offset by the matched region's starts, and the leading source
// dimensions the view drops (unit extents in the region) are indexed at the region's start.
// `indices` has the view's rank, at most the region's; the result has the source's rank.
// Shared by lower-match-buffer and the interpreter, which runs views before lowering.
#pragma once

#include <vector>

#include "vtac/ir/Stmt.h"

namespace vtac::ir {

std::vector<Expr> matchBufferSourceIndices(const BufferRegion &source, const std::vector<Expr> &indices);

}  // namespace vtac::ir
