// Read/write region inference for blocks (what TVM does when T.reads/T.writes are absent).
//
// For every buffer a block accesses, the regions of all its accesses are unioned per
// dimension. An index that is linear in loop variables of loops inside the block spans the
// bounds those loops give it; block iteration variables and outer variables stay symbolic, so
// `A[vi, vk]` reads the point (vi, vk) and `A[vi]`, `A[vi + 1]`, `A[vi + 2]` read
// `A[vi:vi + 3]`. A dimension that cannot be bounded that way (an index not linear in an inner
// loop variable, or bounds of two accesses that differ by a non-constant) covers the whole
// dimension. Inner blocks contribute their own reads/writes with their bindings substituted.
// A buffer's data pointer used directly (`B.data`, `tvm_access_ptr`) makes a whole-buffer
// access (read and write, or as tvm_access_ptr's mask says); `knownBuffers` are the buffers
// whose data pointers are recognised besides those the block accesses itself. Buffers the
// block allocates are left out, and when the block has an init statement the buffers it
// writes are left out of its reads (TVM's rule for reductions). An access of a match_buffer
// view (the block's own, or an inner block region naming an outer block's) is an access of its
// source: the view's dimensions are the source region's last ones, offset by their starts, so
// `AA[j, k]` of `AA = T.match_buffer(A[i, 0:64, 0:64], (64, 64))` reads `A[i, j, k]`; a view
// whose shape does not line up with its region that way stands for the whole region. Results
// are in order of first access.
#pragma once

#include <utility>
#include <vector>

#include "vtac/ir/Stmt.h"

namespace vtac::ir {

struct BlockAccessRegions {
  std::vector<BufferRegion> reads, writes;
};

// The default is TVM's block read/write inference. compact-buffer-allocation asks for the view
// of TVM's CompactBufferAllocation instead: the accesses inside nested opaque blocks (blocks
// without iteration variables) as written rather than their declared regions, and the ranges
// of loop variables narrowed by the `if`, `T.if_then_else` and `T.where` conditions guarding
// an access (constant bounds on one loop variable, through `and`, `not` and a negated `or`).
// With narrowByConditions the bounds also narrow by linear conditions on several loop variables
// (`j * 8 + k < 60` bounds the index `j * 8 + k`), and floordiv / floormod by a positive
// constant are bounded through their dividends (TVM's interval sets); `outerRanges`, the ranges
// of the loops around the block, let the arithmetic there be simplified without wrapping.
struct RegionInferenceOptions {
  bool enterOpaqueBlocks = false;
  bool narrowByConditions = false;
  std::vector<std::pair<VarRef, Range>> outerRanges;
};

BlockAccessRegions inferAccessRegions(const Block &block, const std::vector<BufferRef> &knownBuffers = {},
                                      RegionInferenceOptions options = {});

}  // namespace vtac::ir
