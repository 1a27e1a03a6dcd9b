// flatten-buffer (TVM's FlattenBuffer): every buffer access becomes one-dimensional —
// `A[i, j]` on a (16, 16) buffer becomes `A_1[i * 16 + j]`, where A_1 is a (256,) buffer over
// the same data (parameters keep their N-d buffers in the signature, as TVM keeps them for
// argument checks; the body uses flat views of them). Allocations flatten too (`T.allocate`
// extents multiply out, `T.decl_buffer` declarations are dropped as TVM drops them), strided
// buffers take `strides[0] * shape[0]` elements, a rank-0 buffer becomes (1,), and bool
// buffers are stored as int8 (casts at loads and stores). The flat index includes the
// buffer's elem_offset, so the flat view has none (TVM keeps it on the view; its codegen
// ignores it). A buffer with axis_separators flattens to one dimension per axis group (TVM's
// GetFlattenedBuffer: (2, 3, 5, 7, 11, 13) with separators [3] becomes (30, 1001) with
// separators [1], indexed `A[i0 * 15 + i1 * 5 + i2, i3 * 143 + i4 * 13 + i5]`), and so does
// its allocation; such a buffer with a non-zero elem_offset is an error, as TVM allows the
// offset on flat buffers only. Flat extents are in the analyzer's canonical form (`n * n * 32`
// for (32, n, n), as TVM's), and indices that take one expression x apart row-major over the
// shape (`x // (n * n)`, `x % (n * n) // n`, `x % n`) flatten back to x, as TVM's iter-map
// simplification of the flat index gives. Expects TIR without blocks' match_buffer (run
// lower-match-buffer first); TE-lowered functions are left alone.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> flattenBuffer(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
