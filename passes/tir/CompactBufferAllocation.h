// compact-buffer-allocation (TVM's CompactBufferAllocation): a buffer a block allocates
// shrinks to the region its accesses inside that block touch, and every access is re-based
// (index minus the region's start). Loops inside the block range over their whole extent;
// loops outside stay fixed, except thread loops a buffer is shared across (a global buffer
// under blockIdx/threadIdx, a shared one under threadIdx/vthread/cthread; local buffers
// never), as in TVM. Example: `C_local` (1024, 1024) allocated under the thread loops
// i_0, j_0, i_1, j_1 and written at [i_0*64 + i_1*8 + i_2, ...] becomes (8, 8) and is written
// at [i_2, ...]. Accesses inside nested opaque blocks count as written, and the range of a loop
// variable shrinks under an `if`, `T.if_then_else` or `T.where` condition bounding it by
// constants (TVM's TestPaddingPattern, TestMemAccessInBranch), as does a fused index under a
// condition on a multiple of its loop part (`j * 8 + k < 60`); floordiv/floormod by a constant
// are bounded through their dividends, and launched threads range like loops. A window that may
// start below 0 starts at max(0, start), and one that may end past the dimension keeps its size
// when that is no larger than the dimension (a valid program accesses neither below 0 nor past
// the end). A dimension keeps its full extent when its accesses cannot be bounded that way
// (bounds differing by a non-constant, an index with a loop variable in another non-linear
// term, a start that reads memory the scope writes, or a window larger than the dimension).
// Blocks' alloc_buffers are compacted, and an Allocate whose only view is its DeclBuffer
// (lower-opaque-block's form) or one T.Buffer over its data. A buffer with storage alignments
// (buffer_dim_align, from storage_align) gets the strides they ask for on its compacted shape,
// as TVM's does (its allocation then has the extents the strides imply). Expects opaque blocks
// (run convert-blocks-to-opaque first); TE-lowered functions are left alone.
//
// Configuration (TVM's is_strict argument), as a PassContext option:
//   compact-buffer-allocation.is-strict  1  (0: a window larger than the dimension is kept as it
//       is instead of the whole dimension; every access still lies in it, so the compacted
//       buffer holds what the accesses touch)
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> compactBufferAllocation(const ir::PrimFuncRef &func, PassContext &context);

// The option above, by name.
std::vector<std::string> compactBufferAllocationOptions();

}  // namespace vtac::passes
